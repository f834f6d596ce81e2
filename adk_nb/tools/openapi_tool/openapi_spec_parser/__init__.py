"""OpenAPI spec parsing, the RestApiTool per operation, and the toolset."""

from .openapi_spec_parser import OpenApiSpecError, OpenApiSpecParser, ParsedOperation
from .openapi_toolset import OpenAPIToolset
from .rest_api_tool import RestApiTool

__all__ = ["OpenAPIToolset", "OpenApiSpecError", "OpenApiSpecParser", "ParsedOperation", "RestApiTool"]
