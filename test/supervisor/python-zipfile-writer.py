"""Writes a zip the way release scripts using Python's zipfile do, for visor's archive tests.

Reads a JSON list of entries on stdin: {"name", "data" (base64), "mode"}; writes the zip to stdout.
external_attr is set as such scripts set it, mode << 16: 0o755 gives permission bits with no file-type bits.
"""

import base64
import io
import json
import sys
import zipfile

out = io.BytesIO()
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
    for entry in json.load(sys.stdin):
        info = zipfile.ZipInfo(entry["name"], date_time=(1980, 1, 1, 0, 0, 0))
        info.create_system = 3  # Unix, as zipfile writes on any Unix host
        info.external_attr = entry["mode"] << 16
        zf.writestr(info, base64.b64decode(entry["data"]))
sys.stdout.buffer.write(out.getvalue())
