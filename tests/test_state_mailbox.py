from __future__ import annotations

from dashboard.lib import cache_state as state
from dashboard.lib.locks import cache_lock


def test_what_is_put_in_a_mailbox_is_taken_once_in_order():
    state.mailbox_put("mailbox:test", "a")
    state.mailbox_put("mailbox:test", "b")

    assert state.mailbox_take("mailbox:test") == ["a", "b"]
    assert state.mailbox_take("mailbox:test") == []


def test_a_put_waits_for_a_held_lock_and_then_still_lands(monkeypatch):
    monkeypatch.setattr(state, "MAILBOX_LOCK_WAIT", 0.2)
    with cache_lock("mailbox:busy", ttl=10):
        state.mailbox_put("mailbox:busy", "late")

    assert state.mailbox_take("mailbox:busy") == ["late"]
