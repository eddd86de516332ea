"""URLs of the alerts pages (namespace `dashboard`)."""

from __future__ import annotations

from django.urls import path

from dashboard.views import alerts

urlpatterns = [
    path("", alerts.alert_list, name="alert-list"),
    path("<int:alert_id>/", alerts.alert_detail, name="alert-detail"),
    path("<int:alert_id>/silence/", alerts.alert_silence, name="alert-silence"),
    path("silence/<str:token>/", alerts.alert_silence_link, name="alert-silence-link"),
    path("settings/", alerts.alert_settings, name="alert-settings"),
    path("settings/rules/", alerts.alert_rule_add, name="alert-rule-add"),
    path("settings/rules/<int:rule_id>/", alerts.alert_rule_update, name="alert-rule-update"),
    path("settings/channels/", alerts.alert_channel_add, name="alert-channel-add"),
    path(
        "settings/channels/<int:channel_id>/remove/",
        alerts.alert_channel_remove,
        name="alert-channel-remove",
    ),
    path(
        "settings/channels/<int:channel_id>/test/",
        alerts.alert_channel_test,
        name="alert-channel-test",
    ),
    path(
        "settings/channels/<int:channel_id>/digest/",
        alerts.alert_channel_digest,
        name="alert-channel-digest",
    ),
    path(
        "settings/channels/<int:channel_id>/language/",
        alerts.alert_channel_language,
        name="alert-channel-language",
    ),
]
