import { create, toBinary } from "@bufbuild/protobuf";
import { SimpleValidatorSchema } from "@chaind/proto/tendermint/types/validator_pb";
import { merkleRoot } from "./merkle.js";

/** A validator as a header's validators hash counts it: its ed25519 key and voting power. */
export interface WeightedValidator {
  pubKey: Uint8Array;
  votingPower: bigint;
}

/** A validator set's hash as CometBFT computes it: the Merkle root of each validator's key and power, in order. */
export function validatorSetHash(validators: readonly WeightedValidator[]): Uint8Array {
  return merkleRoot(
    validators.map((v) =>
      toBinary(
        SimpleValidatorSchema,
        create(SimpleValidatorSchema, {
          pubKey: { sum: { case: "ed25519", value: v.pubKey } },
          votingPower: v.votingPower,
        }),
      ),
    ),
  );
}
