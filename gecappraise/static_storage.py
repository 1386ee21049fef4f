"""The collected static files of a deployment: hashed, compressed, and with the imports of the JavaScript modules
rewritten to the hashed names (``judge.js`` imports ``./screen.js``), so that a browser or proxy never pairs a new
module with an old one it kept (the unhashed name is cached only briefly, the hashed ones for a year)."""
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
