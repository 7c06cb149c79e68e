import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create, fromBinary, toJson } from "@bufbuild/protobuf";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { MsgCreateValidatorSchema } from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import { AuthInfoSchema, TxBodySchema, TxRawSchema, TxSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import type { CommandModule } from "yargs";
import { AddressCodec } from "../../app/address-codec.js";
import { Coins } from "../../app/coins.js";
import type { HomeArgs } from "../../app/home-args.js";
import { PROTO_JSON_WRITE } from "../../app/proto-json.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { CliError } from "../../client/cli-error.js";
import { type KeyringArgs, keyringOptions, withCliKeyring } from "../../client/cli-keyring.js";
import { encodeAuthInfo, encodeBody, signTxDirect } from "../../client/direct-signing.js";
import { DEFAULT_BECH32_PREFIX, readGenesis } from "../../config/genesis.js";
import { HomeLayout } from "../../config/home-layout.js";
import { readPrivValidatorKey } from "../../config/priv-validator-key.js";

interface GentxArgs extends KeyringArgs {
  key: string;
  amount: string;
  moniker?: string;
}

/**
 * `chaind genesis gentx <key> <amount>`: a MsgCreateValidator signed by the key, bonding `amount` with this
 * home's consensus key (priv_validator_key.json), written to config/gentx/ for collect-gentxs.
 */
export function gentxCommand(types: TypeRegistry): CommandModule<HomeArgs, GentxArgs> {
  return {
    command: "gentx <key> <amount>",
    describe: "Generate a genesis tx that creates a validator with a self-delegation",
    builder: (y) =>
      y
        .positional("key", { type: "string", demandOption: true })
        .positional("amount", { type: "string", demandOption: true })
        .option("moniker", { type: "string" })
        .options(keyringOptions) as never,
    handler: async (args) => {
      const layout = new HomeLayout(args.home);
      const genesis = readGenesis(layout.genesisJson);
      const prefix = genesis.bech32_prefix ?? DEFAULT_BECH32_PREFIX;
      let amount: Coins;
      try {
        amount = Coins.parse(args.amount);
      } catch (e) {
        throw new CliError(`invalid amount: ${(e as Error).message}`);
      }
      if (amount.list.length !== 1)
        throw new CliError("the self-delegation must be one coin of the bond denom");
      const key = await withCliKeyring(args, prefix, (ring) => ring.signer(args.key));
      const funded = (
        genesis.app_state.bank as { balances?: { address: string }[] } | undefined
      )?.balances?.some((b) => b.address === key.address);
      if (!funded)
        throw new CliError(`account ${key.address} is not in genesis: add it with add-genesis-account first`);
      const consensus = readPrivValidatorKey(layout.privValidatorKey);
      const valoper = new AddressCodec(`${prefix}valoper`).toString(
        new AddressCodec(prefix).fromString(key.address),
      );
      const msg = create(MsgCreateValidatorSchema, {
        description: { moniker: args.moniker ?? valoper },
        commission: {
          // LegacyDec wire form: 0.1, 0.2 and 0.01 scaled by 10^18.
          rate: "100000000000000000",
          maxRate: "200000000000000000",
          maxChangeRate: "10000000000000000",
        },
        minSelfDelegation: "1",
        validatorAddress: valoper,
        pubkey: types.pack(PubKeySchema, create(PubKeySchema, { key: consensus.pubKey })),
        value: amount.toProto()[0],
      });
      const parts = {
        messages: [types.pack(MsgCreateValidatorSchema, msg)],
        fee: { amount: [], gasLimit: 200_000n },
      };
      // Genesis txs are signed with account number 0, as the ante handler checks them at height 0.
      const raw = await signTxDirect(
        parts,
        [{ pubKey: key.pubKey, accountNumber: 0n, sequence: 0n, sign: (b) => key.sign(b) }],
        genesis.chain_id,
      );
      const decoded = fromBinary(TxRawSchema, raw);
      const tx = create(TxSchema, {
        body: fromBinary(TxBodySchema, encodeBody(parts)),
        authInfo: fromBinary(AuthInfoSchema, encodeAuthInfo(parts, [{ pubKey: key.pubKey, sequence: 0n }])),
        signatures: decoded.signatures,
      });
      mkdirSync(layout.gentxDir, { recursive: true });
      const file = join(layout.gentxDir, `gentx-${Buffer.from(consensus.address).toString("hex")}.json`);
      writeFileSync(
        file,
        `${JSON.stringify(toJson(TxSchema, tx, { ...PROTO_JSON_WRITE, registry: types.registry }))}\n`,
      );
      process.stdout.write(`Genesis transaction written to "${file}"\n`);
    },
  };
}
