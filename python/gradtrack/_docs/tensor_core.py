"""x"""

DOCS = {
}
