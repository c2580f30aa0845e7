"""What the documentation site's reference pages are generated from (not public API).

``mkdocs.yml`` loads :mod:`verifier._reference.hook`, which fills each reference page's
``<!-- generated: NAME -->`` line from the code when the site is built: the contract
format and the gap row from their JSON Schemas, the HTTP routes from the server's
OpenAPI document, the Python API from ``verifier.__all__``. The CLI page is rendered by
mkdocs-click from the click commands themselves.
"""

__all__: list[str] = []
