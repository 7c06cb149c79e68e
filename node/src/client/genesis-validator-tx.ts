import { create, fromBinary, type JsonValue, toJson } from "@bufbuild/protobuf";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { MsgCreateValidatorSchema } from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import { AuthInfoSchema, TxBodySchema, TxRawSchema, TxSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { AddressCodec } from "../app/address-codec.js";
import type { Coins } from "../app/coins.js";
import { PROTO_JSON_WRITE } from "../app/proto-json.js";
import type { TypeRegistry } from "../app/type-registry.js";
import { encodeAuthInfo, encodeBody, signTxDirect } from "./direct-signing.js";
import type { KeySigner } from "./keyring/keyring.js";

export interface GenesisValidatorTx {
  /** The account that creates the validator and self-delegates; it must be funded in genesis. */
  key: KeySigner;
  /** The ed25519 key of priv_validator_key.json the validator signs blocks with. */
  consensusPubKey: Uint8Array;
  /** The self-delegation: one coin of the bond denom. */
  amount: Coins;
  moniker?: string;
  chainId: string;
  bech32Prefix: string;
}

/**
 * A gentx: a MsgCreateValidator signed by the operator's key, as protojson, for genutil.gen_txs (written by
 * `genesis gentx`, and by `testnet` for each validator of a network).
 */
export async function signGenesisValidatorTx(types: TypeRegistry, g: GenesisValidatorTx): Promise<JsonValue> {
  const valoper = new AddressCodec(`${g.bech32Prefix}valoper`).toString(
    new AddressCodec(g.bech32Prefix).fromString(g.key.address),
  );
  const msg = create(MsgCreateValidatorSchema, {
    description: { moniker: g.moniker ?? valoper },
    commission: {
      // LegacyDec wire form: 0.1, 0.2 and 0.01 scaled by 10^18.
      rate: "100000000000000000",
      maxRate: "200000000000000000",
      maxChangeRate: "10000000000000000",
    },
    minSelfDelegation: "1",
    validatorAddress: valoper,
    pubkey: types.pack(PubKeySchema, create(PubKeySchema, { key: g.consensusPubKey })),
    value: g.amount.toProto()[0],
  });
  const parts = {
    messages: [types.pack(MsgCreateValidatorSchema, msg)],
    fee: { amount: [], gasLimit: 200_000n },
  };
  // Genesis txs are signed with account number 0, as the ante handler checks them at height 0.
  const raw = await signTxDirect(
    parts,
    [{ pubKey: g.key.pubKey, accountNumber: 0n, sequence: 0n, sign: (b) => g.key.sign(b) }],
    g.chainId,
  );
  const tx = create(TxSchema, {
    body: fromBinary(TxBodySchema, encodeBody(parts)),
    authInfo: fromBinary(AuthInfoSchema, encodeAuthInfo(parts, [{ pubKey: g.key.pubKey, sequence: 0n }])),
    signatures: fromBinary(TxRawSchema, raw).signatures,
  });
  return toJson(TxSchema, tx, { ...PROTO_JSON_WRITE, registry: types.registry });
}
