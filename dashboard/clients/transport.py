"""The transport adapter of the clients' sessions: requests' own, minus per-request work
the clients never need.

A poll sends thousands of status calls a cycle through one session. For each, requests'
`HTTPAdapter` looks up the connection pool again (parsing the URL, selecting proxies,
building a pool key) and copies the answer's cookies into a jar; together about a
third of a status call's CPU time. This adapter keeps the pool it found per host until
the adapter is closed (urllib3's pool manager never closes a pool it drops), and leaves
the cookies out: the services authenticate by header, and a session still records
cookies itself (`Session.send`). Without a proxy it sends the path as it is, without
parsing the URL again. An answer that is not streamed is read whole in one call, where
requests reads it through a chunk generator; its errors are requests' own for a body.
`send` stays requests' own underneath, so what it raises and returns is unchanged.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import requests
import requests.adapters
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import DecodeError, ProtocolError, ReadTimeoutError, SSLError


class KeptPoolAdapter(requests.adapters.HTTPAdapter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pools: dict[tuple[str, str, Any, Any], ConnectionPool] = {}

    def get_connection_with_tls_context(
        self,
        request: requests.PreparedRequest,
        verify: bool | str | None,
        proxies: Any = None,
        cert: Any = None,
    ) -> ConnectionPool:
        if proxies or not request.url:
            return super().get_connection_with_tls_context(request, verify, proxies, cert)
        parts = urlsplit(request.url)
        key = (parts.scheme.lower(), parts.netloc.lower(), verify, cert)
        pool = self._pools.get(key)
        if pool is None:
            pool = super().get_connection_with_tls_context(request, verify, proxies, cert)
            self._pools[key] = pool
        return pool

    def request_url(self, request: requests.PreparedRequest, proxies: Any) -> str:
        if proxies:
            return super().request_url(request, proxies)
        return request.path_url

    def send(  # type: ignore[override]
        self, request: requests.PreparedRequest, stream: bool = False, **kwargs: Any
    ) -> requests.Response:
        response = super().send(request, stream=stream, **kwargs)
        # `_content` is False until requests reads a body (requests' own marker).
        if not stream and response.raw is not None and vars(response)["_content"] is False:
            _read_whole(response)
        return response

    def build_response(self, req: requests.PreparedRequest, resp: Any) -> requests.Response:
        response = requests.Response()
        response.status_code = resp.status
        response.headers = CaseInsensitiveDict(resp.headers)
        response.encoding = get_encoding_from_headers(response.headers)
        response.raw = resp
        response.reason = resp.reason
        response.url = req.url or ""
        response.request = req
        response.connection = self  # as requests sets it
        return response

    def close(self) -> None:
        self._pools.clear()
        super().close()


def _read_whole(response: requests.Response) -> None:
    """Read a response's body in one call, raising what `Response.content` would."""
    try:
        body = response.raw.read(decode_content=True)
    except ProtocolError as exc:
        raise requests.exceptions.ChunkedEncodingError(exc) from exc
    except DecodeError as exc:
        raise requests.exceptions.ContentDecodingError(exc) from exc
    except ReadTimeoutError as exc:
        raise requests.ConnectionError(exc) from exc
    except SSLError as exc:
        raise requests.exceptions.SSLError(exc) from exc
    vars(response).update(_content=body or b"", _content_consumed=True)
