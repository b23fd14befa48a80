"""A PEP 517 build backend in the standard library, so that the client
installs with no package registry on any Python: a virtual environment's
own setuptools can't be relied on (Python 3.12+ venvs have none, and the
one 3.11 ships can't build a wheel without the wheel package). It builds
the one kind of wheel this project needs: pure Python, no dependencies.
Name, version and summary come from pyproject.toml's [project] table."""

import base64
import hashlib
import os
import re
import zipfile

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE = "amem_client"


def _project():
    with open(os.path.join(_ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return {k: v for k, v in re.findall(r'^(\w[\w-]*)\s*=\s*"([^"]*)"', table, re.M)}


def _metadata(p):
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + p["name"],
        "Version: " + p["version"],
        "Summary: " + p.get("description", ""),
        "Requires-Python: " + p.get("requires-python", ">=3"),
    ]
    return "\n".join(lines) + "\n"


_WHEEL = "Wheel-Version: 1.0\nGenerator: amem_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _dist_info(p):
    return "%s-%s.dist-info" % (p["name"].replace("-", "_"), p["version"])


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    p = _project()
    d = os.path.join(metadata_directory, _dist_info(p))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(p))
    with open(os.path.join(d, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_WHEEL)
    return _dist_info(p)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    name = "%s-%s-py3-none-any.whl" % (p["name"].replace("-", "_"), p["version"])
    files = []
    src = os.path.join(_ROOT, _PACKAGE)
    for entry in sorted(os.listdir(src)):
        if entry.endswith(".py") or entry == "py.typed":
            with open(os.path.join(src, entry), "rb") as f:
                files.append((_PACKAGE + "/" + entry, f.read()))
    info = _dist_info(p)
    files.append((info + "/METADATA", _metadata(p).encode()))
    files.append((info + "/WHEEL", _WHEEL.encode()))
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
        record.append(info + "/RECORD,,")
        z.writestr(info + "/RECORD", "\n".join(record) + "\n")
    return name
