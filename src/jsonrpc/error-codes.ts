// JSON-RPC 2.0 standard error codes.
/** JSON-RPC: the message is not valid JSON. */
export const PARSE_ERROR = -32700;
/** JSON-RPC: the message is not a valid request. */
export const INVALID_REQUEST = -32600;
/** JSON-RPC: the method does not exist or is not offered. */
export const METHOD_NOT_FOUND = -32601;
/** JSON-RPC: the parameters are invalid (modern servers also use it for an unknown resource). */
export const INVALID_PARAMS = -32602;
/** JSON-RPC: the receiver failed while handling the request. */
export const INTERNAL_ERROR = -32603;

// MCP error codes (both eras unless noted).
/** Legacy
 (2025-11-25 and earlier) "resource not found"; modern servers answer -32602 instead. */
export const RESOURCE_NOT_FOUND = -32002;
/** Modern, Streamable HTTP only. */
export const HEADER_MISMATCH = -32020;
/** Modern: `data.requiredCapabilities` names what the request should have declared. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** Modern: `data.supported` lists the versions the server accepts, `data.requested` what was asked. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Legacy (2025-11-25 only): `data.elicitations` lists URL elicitations to complete first. */
export const URL_ELICITATION_REQUIRED = -32042;
/** Legacy: the user refused a sampling request. */
export const USER_REJECTED_SAMPLING = -1;
