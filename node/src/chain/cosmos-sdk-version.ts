/**
 * What GetNodeInfo reports as `application_version.cosmos_sdk_version`. The SDK reports the version of the
 * cosmos-sdk Go module its binary was built with; this node has no such module and follows the 0.50 line's API,
 * wire forms and rules instead, so it names that line by its first release (v0.50.0 was retracted). Clients
 * that pick features by SDK version (0.46+ gov v1, 0.50 queries) then choose those this node serves.
 */
export const COSMOS_SDK_VERSION = "v0.50.1";
