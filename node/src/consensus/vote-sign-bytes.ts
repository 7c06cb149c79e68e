import { create } from "@bufbuild/protobuf";
import { sizeDelimitedEncode } from "@bufbuild/protobuf/wire";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { CanonicalVoteSchema } from "@chaind/proto/tendermint/types/canonical_pb";
import { type BlockID, SignedMsgType } from "@chaind/proto/tendermint/types/types_pb";

/**
 * The bytes a validator signs for its precommit of `blockId`, as CometBFT's VoteSignBytes makes them: the
 * canonical vote (height and round fixed-width, the part-set header always present), length-delimited. A light
 * client checks commits against exactly these bytes.
 */
export function precommitSignBytes(
  chainId: string,
  height: bigint,
  round: number,
  blockId: BlockID,
  timestamp: Timestamp,
): Uint8Array {
  return sizeDelimitedEncode(
    CanonicalVoteSchema,
    create(CanonicalVoteSchema, {
      type: SignedMsgType.PRECOMMIT,
      height,
      round: BigInt(round),
      blockId: {
        hash: blockId.hash,
        partSetHeader: {
          total: blockId.partSetHeader?.total ?? 0,
          hash: blockId.partSetHeader?.hash ?? new Uint8Array(),
        },
      },
      timestamp,
      chainId,
    }),
  );
}
