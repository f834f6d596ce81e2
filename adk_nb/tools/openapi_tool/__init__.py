"""OpenAPI toolsets: a REST API's operations, read from its OpenAPI 3 spec, offered as tools."""

from .openapi_spec_parser import OpenAPIToolset, OpenApiSpecError, RestApiTool

__all__ = ["OpenAPIToolset", "OpenApiSpecError", "RestApiTool"]
