"""pytest-socket: a unit test opens no socket; integration and browser tests reach loopback only."""

from __future__ import annotations

import socket

import pytest
from pytest_socket import SocketBlockedError, SocketConnectBlockedError


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_a_unit_test_cannot_open_a_socket():
    with pytest.raises(SocketBlockedError):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)


@pytest.mark.integration
@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_an_integration_test_reaches_loopback_and_nothing_else():
    server = socket.create_server(("127.0.0.1", 0))
    with server, socket.create_connection(server.getsockname(), timeout=5):
        pass

    with pytest.raises(SocketConnectBlockedError):
        socket.create_connection(("192.0.2.1", 80), timeout=1)  # TEST-NET-1, never routed
