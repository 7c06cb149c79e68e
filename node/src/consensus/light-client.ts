import { create } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { cometAddress } from "@chaind/core/comet-address";
import { toHexUpper } from "@chaind/core/hex";
import type { Commit, Header } from "@chaind/proto/tendermint/types/types_pb";
import { BlockIDFlag } from "@chaind/proto/tendermint/types/validator_pb";
import { verifyEd25519 } from "../crypto/ed25519.js";
import { headerHash } from "./header-hash.js";
import { validatorSetHash, type WeightedValidator } from "./validator-set-hash.js";
import { precommitSignBytes } from "./vote-sign-bytes.js";

/** A header, its commit or its validators fail the light-client rules. */
export class LightClientError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LightClientError";
  }
}

/** The voting power of `validators` that signed `commit` for its block, each signature checked. */
function signedPower(chainId: string, commit: Commit, validators: readonly WeightedValidator[]): bigint {
  const byAddress = new Map(validators.map((v) => [toHexUpper(cometAddress(v.pubKey)), v]));
  const counted = new Set<string>();
  let power = 0n;
  for (const sig of commit.signatures) {
    if (sig.blockIdFlag !== BlockIDFlag.BLOCK_ID_FLAG_COMMIT) continue;
    const address = toHexUpper(sig.validatorAddress);
    const v = byAddress.get(address);
    if (!v || counted.has(address)) continue;
    const time = sig.timestamp ?? create(TimestampSchema);
    const bytes = precommitSignBytes(chainId, commit.height, commit.round, commit.blockId!, time);
    if (!verifyEd25519(v.pubKey, bytes, sig.signature))
      throw new LightClientError(`the commit's signature of validator ${address} does not verify`);
    counted.add(address);
    power += v.votingPower;
  }
  return power;
}

const totalPower = (vs: readonly WeightedValidator[]) => vs.reduce((sum, v) => sum + v.votingPower, 0n);

/**
 * Checks a header as CometBFT's light client does when it skips ahead from what it trusts: the header is of
 * `chainId` and is the block the commit signed (its hash, field by field); `validators` are the header's own
 * validator set (its validators hash) and more than 2/3 of their power signed the commit; and validators the
 * caller trusts (genesis' or this node's own) hold more than 1/3 of their power among the signers, so a set
 * they never handed power to cannot have made the header. Throws a LightClientError naming what failed.
 */
export function verifyHeader(args: {
  chainId: string;
  header: Header;
  commit: Commit;
  validators: readonly WeightedValidator[];
  trusted: readonly WeightedValidator[];
}): void {
  const { chainId, header, commit, validators, trusted } = args;
  const height = header.height;
  if (header.chainId !== chainId)
    throw new LightClientError(`the header is of chain ${header.chainId}, not ${chainId}`);
  if (commit.height !== height || !commit.blockId)
    throw new LightClientError(`the commit is of height ${commit.height}, not the header's ${height}`);
  const hash = headerHash(header);
  if (Buffer.compare(hash, commit.blockId.hash) !== 0)
    throw new LightClientError(
      `the commit signs block ${toHexUpper(commit.blockId.hash)}, but the header hashes to ${toHexUpper(hash)}`,
    );
  if (Buffer.compare(validatorSetHash(validators), header.validatorsHash) !== 0)
    throw new LightClientError(
      `the validators given are not the header's validator set (validators hash ${toHexUpper(header.validatorsHash)})`,
    );
  const own = signedPower(chainId, commit, validators);
  const all = totalPower(validators);
  if (own * 3n <= all * 2n)
    throw new LightClientError(
      `validators with ${own} of ${all} voting power signed the commit: not more than 2/3`,
    );
  const byTrusted = signedPower(chainId, commit, trusted);
  const trustedAll = totalPower(trusted);
  if (byTrusted * 3n <= trustedAll)
    throw new LightClientError(
      `trusted validators with ${byTrusted} of ${trustedAll} voting power signed the commit: not more than 1/3`,
    );
}
