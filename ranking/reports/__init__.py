"""Reports of an analysis: renderers from the analysis JSON (PRODUCT.md "Command line and JSON contract") to
JSON, CSV, LaTeX (G15's tables) and one self-contained HTML page with plots.

Renderers are plain functions of the analysis dict; they touch no database. ``formats.FORMATS`` lists them.
"""
