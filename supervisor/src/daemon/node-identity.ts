import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { cometNodeId } from "@chaind/core/comet-address";
import { genesisChainId } from "./genesis-chain-id.js";

/** Who the node of a home is: what a server on its API ports must answer before visor believes it. */
export interface NodeIdentity {
  chainId: string;
  /** Accepted node ids (lower-case hex), each with the key file it comes from. */
  nodeIds: { id: string; file: string }[];
}

const KEY_FILES = ["node_key.json", "priv_validator_key.json"];

const ED25519_PRIV = "tendermint/PrivKeyEd25519";
const ED25519_PUB = "tendermint/PubKeyEd25519";

/**
 * The public key of a key file: `node_key.json` holds only the private key (seed then public half, 64 bytes),
 * `priv_validator_key.json` also its `pub_key`. Only the public half is kept.
 */
function publicKeyIn(path: string): Uint8Array | null {
  let doc: {
    priv_key?: { type?: string; value?: string };
    pub_key?: { type?: string; value?: string };
  };
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
  if (doc.pub_key?.type === ED25519_PUB && typeof doc.pub_key.value === "string") {
    const pub = Buffer.from(doc.pub_key.value, "base64");
    return pub.length === 32 ? pub : null;
  }
  if (doc.priv_key?.type === ED25519_PRIV && typeof doc.priv_key.value === "string") {
    const priv = Buffer.from(doc.priv_key.value, "base64");
    return priv.length === 64 ? Uint8Array.from(priv.subarray(32)) : null;
  }
  return null;
}

/**
 * The identity a home's own files give: the chain id of config/genesis.json and the node ids of
 * config/node_key.json (CometBFT reports this one) and config/priv_validator_key.json (chaind reports this one).
 * A home without a genesis or without either key gives a reason instead: visor then trusts no server.
 */
export function readNodeIdentity(home: string): NodeIdentity | { problem: string } {
  const genesis = join(home, "config", "genesis.json");
  if (!existsSync(genesis)) return { problem: `${genesis} does not exist: the chain id is unknown` };
  let chainId: string;
  try {
    chainId = genesisChainId(genesis);
  } catch (e) {
    return { problem: (e as Error).message };
  }
  const nodeIds: NodeIdentity["nodeIds"] = [];
  for (const name of KEY_FILES) {
    const file = join(home, "config", name);
    const pub = existsSync(file) ? publicKeyIn(file) : null;
    if (pub) nodeIds.push({ id: cometNodeId(pub), file: name });
  }
  if (nodeIds.length === 0)
    return {
      problem: `neither ${join(home, "config", "node_key.json")} nor priv_validator_key.json holds a readable ed25519 key: the node id is unknown`,
    };
  return { chainId, nodeIds };
}

/** Where a file stands (inode, size, modification time), or "-" when it is missing. */
function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return "-";
  }
}

/**
 * The identity of a home as it is now: read again while it is unusable, whenever one of its files changed
 * (CometBFT writes node_key.json at the node's first start, usually after visor started). Once usable, it is
 * kept: a node id does not change under a running node.
 */
export function homeIdentity(home: string): () => NodeIdentity | { problem: string } {
  const files = ["genesis.json", ...KEY_FILES].map((f) => join(home, "config", f));
  let known: NodeIdentity | { problem: string } | undefined;
  let stamp = "";
  return () => {
    if (known && !("problem" in known)) return known;
    const now = files.map(fileStamp).join(",");
    if (known === undefined || now !== stamp) {
      stamp = now;
      known = readNodeIdentity(home);
    }
    return known;
  };
}
