"""Prepare a worker's own database for an ingest-run test, in a subprocess:

    python -m tests.support.ingest_seed LOCATION_UUID FOLDER CAP

migrates it, makes an operator and creates a run over FOLDER on every configured
pipeline (through the service, so the folder is checked through the storage service),
and prints the run's id.
"""

from __future__ import annotations

import sys

import django


def main(location: str, folder: str, cap: int) -> None:
    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from dashboard.lib.pipelines import pipeline_list
    from dashboard.lib.role_names import Role
    from dashboard.services import ingest_runs
    from dashboard.services.actions import idempotency_key_new

    call_command("migrate", "--noinput", verbosity=0)
    user = User.objects.create_user(username="olga", password="x" * 20)
    user.groups.add(Group.objects.get(name=Role.OPERATOR.value))
    slugs = tuple(p.slug for p in pipeline_list())
    created = ingest_runs.ingest_run_create(
        user=User.objects.get(pk=user.pk),
        request=ingest_runs.IngestRunRequest(
            name="Killed twice",
            source_location=location,
            path=folder.encode(),
            pipelines=slugs,
            processing_configs={slug: "automated" for slug in slugs},
            max_in_flight=cap,
        ),
        idempotency_key=idempotency_key_new(),
    )
    assert created.run is not None, created.result.message
    print(created.run.pk)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
