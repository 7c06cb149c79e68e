import { create, toBinary } from "@bufbuild/protobuf";
import {
  BytesValueSchema,
  Int64ValueSchema,
  StringValueSchema,
  TimestampSchema,
} from "@bufbuild/protobuf/wkt";
import {
  type BlockID,
  BlockIDSchema,
  type Header,
  PartSetHeaderSchema,
} from "@chaind/proto/tendermint/types/types_pb";
import { ConsensusSchema } from "@chaind/proto/tendermint/version/types_pb";
import { merkleRoot } from "./merkle.js";

// Fields as CometBFT's header hash takes them: in their protobuf wrapper, nothing when empty.
const bytesField = (value: Uint8Array) => toBinary(BytesValueSchema, create(BytesValueSchema, { value }));
const stringField = (value: string) => toBinary(StringValueSchema, create(StringValueSchema, { value }));
const int64Field = (value: bigint) => toBinary(Int64ValueSchema, create(Int64ValueSchema, { value }));

/** A block id as gogoproto writes it: the part-set header always present, even when empty. */
export function blockIdBytes(id: BlockID | undefined): Uint8Array {
  return toBinary(
    BlockIDSchema,
    create(BlockIDSchema, {
      hash: id?.hash ?? new Uint8Array(),
      partSetHeader: create(PartSetHeaderSchema, {
        total: id?.partSetHeader?.total ?? 0,
        hash: id?.partSetHeader?.hash ?? new Uint8Array(),
      }),
    }),
  );
}

/**
 * A block's hash as CometBFT computes it (Header.Hash): the Merkle root of the header's fourteen fields, each
 * encoded on its own, so a light client can check a commit against the header field by field.
 */
export function headerHash(h: Header): Uint8Array {
  return merkleRoot([
    toBinary(ConsensusSchema, create(ConsensusSchema, h.version ?? {})),
    stringField(h.chainId),
    int64Field(h.height),
    toBinary(TimestampSchema, create(TimestampSchema, h.time ?? {})),
    blockIdBytes(h.lastBlockId),
    bytesField(h.lastCommitHash),
    bytesField(h.dataHash),
    bytesField(h.validatorsHash),
    bytesField(h.nextValidatorsHash),
    bytesField(h.consensusHash),
    bytesField(h.appHash),
    bytesField(h.lastResultsHash),
    bytesField(h.evidenceHash),
    bytesField(h.proposerAddress),
  ]);
}
