from __future__ import annotations

import inspect

import pytest

from dashboard.clients.storage import StorageClient
from tests.storage.fakes import FakeStorageClient

FAKED = [
    name
    for name, member in vars(FakeStorageClient).items()
    if callable(member) and not name.startswith("_") and hasattr(StorageClient, name)
]


def test_the_fake_covers_every_method_the_storage_layer_calls():
    used = {
        "list_pipelines",
        "list_spaces",
        "list_locations",
        "list_packages",
        "list_packages_page",
        "get_package",
        "browse_location",
        "check_fixity",
        "download_package",
        "get_pointer_file",
        "get_package_contents",
        "request_deletion",
        "request_recovery",
        "reingest",
        "move_package",
    }

    assert used <= set(FAKED)


@pytest.mark.parametrize("name", FAKED)
def test_a_fake_method_takes_the_same_arguments_as_the_real_one(name):
    real = inspect.signature(getattr(StorageClient, name))
    fake = inspect.signature(getattr(FakeStorageClient, name))

    def shape(signature: inspect.Signature) -> list[tuple[str, object]]:
        return [(p.name, p.kind) for p in signature.parameters.values()]

    assert shape(fake) == shape(real)
