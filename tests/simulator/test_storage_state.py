"""The storage side's state: seeding, running totals, the transfer source and the calls
the workflow side makes."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest

from simulator import storage as st
from simulator.clock import SimClock
from simulator.storage import StorageState

START = datetime(2026, 5, 1, 12, 0, 0)


def make_state(*, seed: int = 1, packages: int = 400, **config: object) -> StorageState:
    sim = SimpleNamespace(
        config=SimpleNamespace(seed=seed, host="127.0.0.1", **config),
        clock=SimClock(1.0, START),
        lock=threading.RLock(),
        record_action=lambda action, target: None,
    )
    state = StorageState(sim)
    state.seed(packages=packages)
    return state


@pytest.fixture(scope="module")
def state() -> StorageState:
    return make_state()


def fresh_uuid(number: int) -> str:
    return f"{number:08d}-aaaa-4aaa-8aaa-aaaaaaaaaaaa"


def test_it_seeds_exactly_the_packages_asked_for(state):
    assert state.package_count() == 400


def test_it_seeds_the_same_data_for_the_same_seed():
    first, second = make_state(seed=7, packages=150), make_state(seed=7, packages=150)
    assert list(first.packages) == list(second.packages)
    assert first.pipeline_uuid == second.pipeline_uuid
    assert list(first.locations) == list(second.locations)


def test_it_seeds_different_data_for_another_seed():
    assert list(make_state(seed=1, packages=20).packages) != list(
        make_state(seed=2, packages=20).packages
    )


def test_it_has_a_location_for_every_purpose_and_an_internal_one_without_pipelines(state):
    purposes = {location.purpose for location in state.active_locations()}
    assert {"AS", "DS", "BL", "TS", "CP", "AR", "SS", "RP"} <= purposes
    internal = [location for location in state.locations.values() if location.purpose == "SS"]
    assert internal and all(location.pipelines == [] for location in internal)


def test_it_has_two_enabled_aip_stores_and_a_disabled_location(state):
    aip_stores = [loc for loc in state.active_locations() if loc.purpose == "AS"]
    assert len(aip_stores) >= 2
    assert any(not location.enabled for location in state.locations.values())
    assert any(not pipeline.enabled for pipeline in state.pipelines.values())


def test_it_keeps_an_external_store_whose_packages_are_not_local(state):
    remote = [p for p in state.packages.values() if not p.locally_available]
    assert remote
    assert all(p.location.space.access_protocol == st.EXTERNAL_ARCHIVAL_STORE for p in remote)


def test_it_mixes_package_types_and_statuses(state):
    types = Counter(package.package_type for package in state.packages.values())
    statuses = Counter(package.status for package in state.packages.values())
    assert types["AIP"] > types["DIP"] > 0
    assert types["transfer"] > 0 and types["AIC"] > 0
    assert statuses.most_common(1)[0][0] == "UPLOADED"
    assert len(statuses) >= 4


def test_it_relates_dips_and_aips_both_ways(state):
    dips = [package for package in state.packages.values() if package.package_type == "DIP"]
    for dip in dips:
        (aip,) = dip.related
        assert dip in aip.related
        assert dip.current_path.endswith(f"{aip.name}-{aip.uuid}")


def test_it_links_replicas_to_their_originals(state):
    replicas = [p for p in state.packages.values() if p.replicated_package is not None]
    assert replicas
    for replica in replicas:
        assert replica in replica.replicated_package.replicas
        assert replica.location.purpose == "RP"


def test_it_lays_aips_out_under_their_split_uuid(state):
    aip = next(p for p in state.packages.values() if p.package_type == "AIP")
    directories = aip.current_path.split("/")[:8]
    assert "".join(directories) == aip.uuid.replace("-", "")
    assert all(len(part) == 4 for part in directories)
    assert aip.current_full_path == f"{aip.location.path}/{aip.current_path}"


def test_it_gives_transfers_no_stored_date(state):
    transfers = [p for p in state.packages.values() if p.package_type == "transfer"]
    assert transfers and all(p.stored_date is None for p in transfers)


def test_it_spreads_sizes_from_bytes_to_hundreds_of_gigabytes():
    sizes = [package.size for package in make_state(packages=3000).packages.values()]
    assert min(sizes) < 1000
    assert max(sizes) > 100 * 10**9


def test_it_sums_stored_packages_into_location_and_space_usage(state):
    for location in state.locations.values():
        expected = sum(p.size for p in state.packages_in(location) if p.takes_space)
        assert location.used == expected
    for space in state.spaces.values():
        assert space.used == sum(loc.used for loc in state.locations.values() if loc.space is space)


def test_storing_an_aip_adds_it_to_the_default_aip_store():
    state = make_state(packages=10)
    store = state.default_locations["AS"]
    before = store.used
    state.store_aip(uuid=fresh_uuid(1), name="minutes", size=1234, stored_at=START)
    package = state.packages[fresh_uuid(1)]
    assert (package.package_type, package.status, package.location) == ("AIP", "UPLOADED", store)
    assert package.current_path.endswith(f"minutes-{fresh_uuid(1)}.7z")
    assert store.used == before + 1234


def test_storing_an_aip_again_ends_its_reingest():
    state = make_state(packages=10)
    state.store_aip(uuid=fresh_uuid(1), name="minutes", size=100, stored_at=START)
    package = state.packages[fresh_uuid(1)]
    state.start_reingest(package, state.pipeline, "full")
    assert state.is_reingesting(package)
    later = START + timedelta(hours=1)
    state.store_aip(uuid=fresh_uuid(1), name="minutes", size=150, stored_at=later)
    assert state.package_count() == 11
    assert not state.is_reingesting(package)
    assert package.misc_attributes == {"reingest_pipeline": None}
    assert (package.size, package.stored_date) == (150, later)
    assert package.location.used == sum(
        p.size for p in state.packages_in(package.location) if p.takes_space
    )


def test_storing_a_dip_relates_it_to_its_aip():
    state = make_state(packages=10)
    state.store_aip(uuid=fresh_uuid(1), name="minutes", size=100, stored_at=START)
    state.store_dip(
        uuid=fresh_uuid(2), aip_uuid=fresh_uuid(1), name="minutes", size=10, stored_at=START
    )
    aip, dip = state.packages[fresh_uuid(1)], state.packages[fresh_uuid(2)]
    assert dip.location is state.default_locations["DS"]
    assert dip.related == [aip] and aip.related == [dip]


def test_storing_a_backlogged_transfer_puts_it_in_the_backlog():
    state = make_state(packages=10)
    state.store_backlog_transfer(uuid=fresh_uuid(3), name="letters", size=55, stored_at=START)
    package = state.packages[fresh_uuid(3)]
    assert (package.package_type, package.location.purpose) == ("transfer", "BL")
    assert package.stored_date is None


def test_every_listed_transfer_source_path_resolves(state):
    paths = state.transfer_source_paths()
    assert len(paths) >= 20
    for location_uuid, path in paths:
        entry = state.resolve_transfer_source(location_uuid=location_uuid, relative_path=path)
        assert entry.is_dir and entry.relative_path == path


def test_it_resolves_an_absolute_path_in_the_default_transfer_source(state):
    location = state.default_locations["TS"]
    entry = state.resolve_transfer_source(
        location_uuid=None, relative_path=f"{location.path}/large-image-series/"
    )
    assert entry.location_uuid == location.uuid
    assert entry.relative_path == "large-image-series"
    assert entry.file_count == st.LARGE_DIRECTORY_FILES
    assert entry.size > 0


def test_it_resolves_a_single_file(state):
    location = state.default_locations["TS"]
    entry = state.resolve_transfer_source(
        location_uuid=location.uuid, relative_path="dir with space/objects/data with spaces.csv"
    )
    assert (entry.is_dir, entry.file_count, entry.size) == (False, 1, 8)


def test_it_resolves_a_name_that_is_not_utf8(state):
    location = state.default_locations["TS"]
    raw = b"legacy-encodings/objects/caf\xe9-menu-1962.txt"
    entry = state.resolve_transfer_source(location_uuid=location.uuid, relative_path=raw)
    assert entry.relative_path.encode("utf-8", "surrogateescape") == raw


@pytest.mark.parametrize("path", ["nothing-here", "../etc", "dir with space/../../etc"])
def test_it_reports_a_missing_path_as_file_not_found(state, path):
    with pytest.raises(FileNotFoundError):
        state.resolve_transfer_source(
            location_uuid=state.default_locations["TS"].uuid, relative_path=path
        )


def test_it_reports_an_absolute_path_outside_the_default_source_as_missing(state):
    with pytest.raises(FileNotFoundError):
        state.resolve_transfer_source(location_uuid=None, relative_path="/etc/passwd")


def test_it_refuses_locations_that_are_not_this_pipelines_transfer_sources(state):
    peer_source = next(
        loc
        for loc in state.locations.values()
        if loc.purpose == "TS" and state.pipeline not in loc.pipelines
    )
    aip_store = state.default_locations["AS"]
    for location_uuid in (peer_source.uuid, aip_store.uuid, fresh_uuid(9)):
        with pytest.raises(LookupError):
            state.resolve_transfer_source(location_uuid=location_uuid, relative_path="anything")


def test_it_caps_the_object_count_of_a_huge_directory(state):
    entries = state.browse_location(state.default_locations["TS"], [])
    counts = {entry.name: entry.object_count for entry in entries}
    assert counts[b"large-image-series"] == "5000+"
    assert counts[b"dir with space"] == 2


def test_it_browses_an_aip_store_as_its_packages_paths(state):
    store = state.default_locations["AS"]
    top = state.browse_location(store, [])
    assert top and all(entry.is_dir and len(entry.name) == 4 for entry in top)
    package = next(iter(state.packages_in(store)))
    *directories, leaf = package.current_path.encode().split(b"/")
    names = [entry.name for entry in state.browse_location(store, directories)]
    assert leaf in names
    assert state.browse_location(store, [b"zzzz"]) is None


def test_it_browses_a_space_down_into_a_location(state):
    space = state.default_locations["TS"].space
    assert [entry.name for entry in state.browse_space(space, "")] == [b"home", b"var"]
    inside = state.browse_space(space, "/home/transfer-source")
    assert b"large-image-series" in [entry.name for entry in inside]


def test_index_lookups_find_the_same_packages_as_a_full_scan(state):
    store = state.default_locations["AS"]
    candidates, total = state.package_candidates(
        package_types={"AIP", "AIC"}, statuses={"UPLOADED"}, location_uuids={store.uuid}
    )
    expected = [
        p
        for p in state.packages.values()
        if p.package_type in {"AIP", "AIC"} and p.status == "UPLOADED" and p.location is store
    ]
    assert total is None
    assert sorted(p.uuid for p in candidates) == sorted(p.uuid for p in expected)


def test_a_second_delete_request_for_a_package_is_refused():
    state = make_state(packages=50)
    package = next(
        p for p in state.packages.values() if p.package_type == "AIP" and p.status == "UPLOADED"
    )
    used_before = package.location.used
    details = {
        "pipeline_uuid": state.pipeline_uuid,
        "reason": "duplicate",
        "user_id": 1,
        "user_email": "a@b.c",
    }
    first = state.request_package_event(package, st.DELETE_REQUEST, **details)
    assert first is not None and package.status == "DEL_REQ"
    assert state.request_package_event(package, st.DELETE_REQUEST, **details) is None
    assert package.location.used == used_before


def test_moving_a_package_moves_its_size_between_locations():
    state = make_state(packages=50)
    package = next(p for p in state.packages.values() if p.package_type == "AIP" and p.takes_space)
    source = package.location
    target = next(
        loc for loc in state.active_locations() if loc.purpose == "AS" and loc is not source
    )
    source_used, target_used = source.used, target.used
    state.relocate(package, target)
    assert (source.used, target.used) == (source_used - package.size, target_used + package.size)
    assert package in state.packages_in(target)


def test_fixity_checks_pass_fail_or_cannot_start_and_are_kept():
    state = make_state(packages=3000)
    bags = [p for p in state.packages.values() if p.package_type == "AIP"]
    good = next(p for p in bags if not p.fixity_broken)
    broken = next(p for p in bags if p.fixity_broken)
    dip = next(p for p in state.packages.values() if p.package_type == "DIP")
    assert state.check_fixity(good, force_local=True)["success"] is True
    failed = state.check_fixity(broken, force_local=True)
    assert failed["success"] is False and failed["message"] == "Bag validation failed"
    assert failed["failures"]["files"]["missing"][0]["path"] == "bag-info.txt"
    assert state.check_fixity(dip, force_local=False)["success"] is None
    state.check_fixity(good, force_local=True)
    assert [check.success for check in good.fixity_checks] == [True, True]


def test_it_shows_times_in_the_configured_server_time_zone():
    state = make_state(packages=5, storage_time_zone="America/Los_Angeles")
    assert state.server_time(datetime(2026, 1, 15, 20, 0)) == datetime(2026, 1, 15, 12, 0)
    assert make_state(packages=5).server_time(START) == START
