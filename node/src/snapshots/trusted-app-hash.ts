import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import type { BlockID } from "@chaind/proto/tendermint/types/types_pb";
import { commitFromJson, headerFromJson, validatorsFromJson } from "../consensus/light-block-json.js";
import { LightClientError, verifyHeader } from "../consensus/light-client.js";
import type { WeightedValidator } from "../consensus/validator-set-hash.js";

/** Validators asked for per page: CometBFT's largest page. */
const PER_PAGE = 100;
/** Pages read at most: 10,000 validators, far above any chain's set. */
const MAX_PAGES = 100;

async function validatorsAt(rpc: NodeRpcClient, height: number): Promise<WeightedValidator[]> {
  const all: WeightedValidator[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await rpc.call<{ total?: string }>("validators", {
      height: String(height),
      page: String(page),
      per_page: String(PER_PAGE),
    });
    const got = validatorsFromJson(answer);
    all.push(...got);
    if (got.length === 0 || all.length >= Number(answer.total ?? 0)) return all;
  }
  return all;
}

/**
 * The app hash of the state at `height`, from a node the operator names, believed only as a light client
 * believes it: the header of height+1 (whose app hash is the state's at `height`), checked against its commit
 * and validator set, signed by validators the caller trusts. Also answers that header's last block id: the
 * block at `height` a snapshot brings must be that one.
 */
export async function trustedAppHash(
  node: string,
  height: number,
  chainId: string,
  trusted: readonly WeightedValidator[],
): Promise<{ appHash: Uint8Array; blockId: BlockID }> {
  const rpc = new NodeRpcClient(node, { timeoutMs: 15_000, maxAnswerBytes: 8 * 1024 * 1024 });
  const answer = await rpc.call<{ signed_header?: { header?: unknown; commit?: unknown } }>("commit", {
    height: String(height + 1),
  });
  const header = headerFromJson(answer.signed_header?.header);
  const commit = commitFromJson(answer.signed_header?.commit);
  if (header.height !== BigInt(height + 1))
    throw new LightClientError(`the node answered the header of height ${header.height}, not ${height + 1}`);
  verifyHeader({ chainId, header, commit, validators: await validatorsAt(rpc, height + 1), trusted });
  return { appHash: header.appHash, blockId: header.lastBlockId! };
}
