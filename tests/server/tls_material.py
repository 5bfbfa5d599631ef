"""TLS test material for the dial-in server's tests: a trustme CA and a server certificate
for 127.0.0.1, ::1 and localhost, written as PEM files into a folder.

    material = make_tls_material(tmp_path)
    tls = ServerTls(material.cert, material.key)          # or tls_credentials(...)
    channel = grpc.aio.secure_channel(address, material.channel_credentials())
    old = material.reissue()                              # a NEW CA, same two files
    grpc.aio.secure_channel(address, material.channel_credentials(old))  # the old CA

Files are replaced atomically (written beside, then renamed), as certbot and most
renewal tools do, so a server never reads half a file from here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import trustme

NAMES = ("127.0.0.1", "::1", "localhost")


def _write(path: Path, data: bytes) -> None:
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    part.chmod(0o600)
    os.replace(part, path)


@dataclass
class TlsMaterial:
    """A CA and the server certificate it signed, at ``cert`` (chain) and ``key``."""

    folder: Path
    ca: trustme.CA
    cert: Path = field(init=False)
    key: Path = field(init=False)
    ca_file: Path = field(init=False)

    def __post_init__(self) -> None:
        self.cert = self.folder / "server.pem"
        self.key = self.folder / "server.key"
        self.ca_file = self.folder / "ca.pem"
        self._write_for(self.ca)

    def _write_for(self, ca: trustme.CA) -> None:
        issued = ca.issue_cert(*NAMES)
        _write(self.key, issued.private_key_pem.bytes())
        _write(self.cert, b"".join(pem.bytes() for pem in issued.cert_chain_pems))
        _write(self.ca_file, ca.cert_pem.bytes())

    def ca_pem(self) -> bytes:
        """The current CA's certificate, what a bot is given as ``ca=``."""
        return bytes(self.ca.cert_pem.bytes())

    def channel_credentials(self, ca: trustme.CA | None = None) -> grpc.ChannelCredentials:
        """Client credentials trusting only ``ca`` (default: the current CA)."""
        return grpc.ssl_channel_credentials((ca or self.ca).cert_pem.bytes())

    def reissue(self, *, new_ca: bool = True) -> trustme.CA:
        """Replace the certificate and key files (and ``ca_file``) with a fresh pair, signed
        by a NEW CA unless ``new_ca=False``; returns the previous CA."""
        old = self.ca
        if new_ca:
            self.ca = trustme.CA()
        self._write_for(self.ca)
        return old


def make_tls_material(folder: Path) -> TlsMaterial:
    """A new CA and server certificate written into ``folder`` (created if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    return TlsMaterial(folder, trustme.CA())
