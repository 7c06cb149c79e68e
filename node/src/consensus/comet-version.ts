/**
 * The CometBFT release this node answers as (RPC `status`, gRPC `GetNodeInfo`): CosmJS keys its client choice
 * on it.
 */
export const COMET_VERSION = "0.38.17";

/**
 * CometBFT 0.38's protocol versions: `p2p` in node info, `block` in node info and in every block header. The
 * app's protocol version comes from the upgrade module instead.
 */
export const COMET_PROTOCOL = { p2p: 8, block: 11 } as const;

/** The p2p channel ids a CometBFT 0.38 node lists in its node info, as `status` prints them. */
export const COMET_CHANNELS = "40202122233038606100";
