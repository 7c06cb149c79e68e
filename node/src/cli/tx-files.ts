import { readFileSync, writeFileSync } from "node:fs";
import { create, fromBinary, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { NodeCallError } from "@chaind/core/comet-rpc-client";
import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import { SimulateRequestSchema, SimulateResponseSchema } from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import {
  type AuthInfo,
  AuthInfoSchema,
  type SignerInfo,
  type Tx,
  TxBodySchema,
  TxRawSchema,
  TxSchema,
} from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import type { Argv, CommandModule } from "yargs";
import { AddressCodec } from "../app/address-codec.js";
import { rewriteAnyTypeUrls } from "../app/any-namespace.js";
import { anyNamespace, fromProtoJson, toProtoJson } from "../app/proto-json.js";
import { packedTxSigners } from "../app/tx-signers.js";
import type { TypeRegistry } from "../app/type-registry.js";
import { chainAccount } from "../client/chain-account.js";
import { chainPrefix } from "../client/chain-prefix.js";
import { CliError } from "../client/cli-error.js";
import { keyringOptions, withCliKeyring } from "../client/cli-keyring.js";
import { committedTx } from "../client/committed-tx.js";
import { directSignerInfo } from "../client/direct-signing.js";
import { clientDefaults, type QueryArgs, queryOptions } from "../client/query-options.js";
import { nodeClient, printJson } from "../client/run-query.js";
import { cliSignBytes, type SignModeName, signModeOf, signModeOption } from "../client/sign-mode-option.js";
import { noteSigned, signingChainId } from "../client/signing-chain.js";
import { broadcastTxResponse } from "../client/tx-response.js";
import { ChainError } from "../errors/chain-error.js";
import { multisignCommand, signAsMultisigMember, type TxFileTools } from "./tx-multisig.js";

function readTxFile(file: string, types: TypeRegistry): Tx {
  let json: JsonValue;
  try {
    json = JSON.parse(file === "-" ? readFileSync(0, "utf8") : readFileSync(file, "utf8"));
  } catch (e) {
    throw new CliError(`cannot read transaction file ${file}: ${(e as Error).message}`);
  }
  try {
    return fromProtoJson(TxSchema, json, types);
  } catch (e) {
    throw new CliError(`${file} is not a transaction: ${(e as Error).message}`);
  }
}

/** TxRaw bytes of a Tx: the bytes that are signed and broadcast. */
function rawBytes(tx: Tx): Uint8Array {
  return toBinary(
    TxRawSchema,
    create(TxRawSchema, {
      bodyBytes: toBinary(TxBodySchema, tx.body ?? create(TxBodySchema)),
      authInfoBytes: toBinary(AuthInfoSchema, tx.authInfo ?? create(AuthInfoSchema)),
      signatures: tx.signatures,
    }),
  );
}

/** The accounts that must sign the file's tx, in the order of its signer infos and signatures. */
function signersOf(tx: Tx, types: TypeRegistry, prefix: string): string[] {
  try {
    return packedTxSigners(
      tx.body?.messages ?? [],
      tx.authInfo?.fee?.payer ?? "",
      types,
      new AddressCodec(prefix),
    );
  } catch (e) {
    if (e instanceof ChainError)
      throw new CliError(`cannot tell the signers of this transaction: ${e.message}`);
    throw e;
  }
}

const txJson = (tx: Tx, types: TypeRegistry) => toProtoJson(TxSchema, tx, types);

const TOOLS: TxFileTools = { readTxFile, signersOf, txJson, call: (fn) => call(fn) };

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof NodeCallError) throw new CliError(e.message);
    throw e;
  }
}

interface SignArgs extends QueryArgs {
  file: string;
  from: string;
  "chain-id"?: string;
  offline: boolean;
  "account-number"?: number;
  sequence?: number;
  "output-document"?: string;
  "keyring-backend"?: string;
  "keyring-dir"?: string;
  "sign-mode": SignModeName;
  multisig?: string;
}

/** `tx sign|broadcast|encode|decode|simulate`: the separate steps of generate, sign, broadcast, on files. */
export function txFileCommands(types: TypeRegistry): CommandModule<QueryArgs, QueryArgs>[] {
  const sign: CommandModule<QueryArgs, SignArgs> = {
    command: "sign <file>",
    describe:
      "Sign a transaction generated with --generate-only (--sign-mode direct or amino-json); with several signers, each signs the file in turn",
    builder: (y: Argv) =>
      y
        .options(queryOptions)
        .option("from", { type: "string", demandOption: true })
        .option("chain-id", { type: "string" })
        .option("offline", {
          type: "boolean",
          default: false,
          describe: "do not ask the node: give -a and -s",
        })
        .option("account-number", { alias: "a", type: "number" })
        .option("sequence", { alias: "s", type: "number" })
        .option("output-document", { type: "string", describe: "write the signed tx here instead of stdout" })
        .option("multisig", {
          type: "string",
          describe:
            "sign for this multisig account (key name or address) as one of its members: writes a signature file for tx multisign",
        })
        .options(signModeOption)
        .options(keyringOptions) as never,
    handler: async (args) => {
      if (args.multisig !== undefined) {
        // Members sign amino JSON, as Cosmos's CLI has them do, whatever --sign-mode says.
        return signAsMultisigMember({ ...args, multisig: args.multisig }, types, TOOLS);
      }
      const tx = readTxFile(args.file, types);
      const prefix = chainPrefix(args.home);
      // The key as listed (no passphrase) until the node has given the account: a node that is down is
      // reported before any prompt, as the SDK does.
      const listed = await withCliKeyring(args, prefix, (ring) => ring.get(args.from));
      const signers = signersOf(tx, types, prefix);
      const index = signers.indexOf(listed.address);
      if (index < 0)
        throw new CliError(
          `tx intended signer does not match the given signer: ${args.from} (${listed.address}) is not among the signers of this transaction (${signers.join(", ")})`,
        );
      let own: { accountNumber: bigint; sequence: bigint };
      const chainId = signingChainId(args["chain-id"], args.home);
      if (args.offline) {
        if (args["account-number"] === undefined || args.sequence === undefined)
          throw new CliError("--offline needs --account-number (-a) and --sequence (-s)");
        own = { accountNumber: BigInt(args["account-number"]), sequence: BigInt(args.sequence) };
      } else {
        own = await chainAccount(args, listed.address);
      }

      // SIGN_MODE_DIRECT signs the auth info, so it must list every signer (in the order of `signers`) before
      // anyone signs: this key's own info, then what the file holds, else what the chain knows of the others.
      const mode = signModeOf(args["sign-mode"] ?? "direct");
      const others = new Map<string, Awaited<ReturnType<typeof chainAccount>>>();
      if (!args.offline && (tx.authInfo?.signerInfos.length ?? 0) !== signers.length)
        for (const address of signers)
          if (address !== listed.address) others.set(address, await chainAccount(args, address));
      const key = await withCliKeyring(args, prefix, (ring) => ring.signer(args.from));
      const before = tx.authInfo ?? create(AuthInfoSchema);
      const beforeBytes = toBinary(AuthInfoSchema, before);
      const complete = before.signerInfos.length === signers.length;
      const infos: SignerInfo[] = [];
      for (const [i, address] of signers.entries()) {
        if (i === index) infos.push(directSignerInfo({ pubKey: key.pubKey, sequence: own.sequence }, mode));
        else if (complete) infos.push(before.signerInfos[i]);
        else if (args.offline) infos.push(directSignerInfo({ sequence: 0n }, mode));
        else infos.push(directSignerInfo(others.get(address)!, mode));
      }
      const authInfo: AuthInfo = { ...before, signerInfos: infos };
      // Signed in the namespace of the file, so the file's own type URLs are what the signature covers.
      rewriteAnyTypeUrls(AuthInfoSchema, authInfo, anyNamespace(TxSchema, tx, types), types);
      tx.authInfo = authInfo;
      const bodyBytes = toBinary(TxBodySchema, tx.body ?? create(TxBodySchema));
      const authInfoBytes = toBinary(AuthInfoSchema, authInfo);
      // Earlier direct signatures cover the earlier auth info: they stay only if it did not change. An amino
      // JSON signature covers the fee alone of it, which signing never changes.
      const unchanged = complete && Buffer.from(authInfoBytes).equals(beforeBytes);
      const signed = (i: number) => (tx.signatures[i]?.length ?? 0) > 0;
      const aminoSigned = (i: number) => {
        const m = infos[i].modeInfo?.sum;
        return m?.case === "single" && m.value.mode === SignMode.LEGACY_AMINO_JSON;
      };
      const keeps = (i: number) => signed(i) && (unchanged || aminoSigned(i));
      const dropped = signers.filter((_, i) => i !== index && signed(i) && !keeps(i));
      const signatures = signers.map((_, i) => (keeps(i) ? tx.signatures[i] : new Uint8Array()));
      signatures[index] = key.sign(
        cliSignBytes(
          mode,
          bodyBytes,
          authInfoBytes,
          { chainId, accountNumber: own.accountNumber, sequence: own.sequence },
          types,
        ),
      );
      tx.signatures = signatures;
      noteSigned(chainId, key.address);
      const out = `${JSON.stringify(txJson(tx, types))}\n`;
      if (args["output-document"]) writeFileSync(args["output-document"], out);
      else process.stdout.write(out);
      if (dropped.length > 0)
        process.stderr.write(
          `the signer infos changed, so the signatures of ${dropped.join(", ")} no longer match and were removed: they must sign again\n`,
        );
      const missing = signers.filter((_, i) => signatures[i].length === 0);
      if (missing.length > 0) process.stderr.write(`still to sign: ${missing.join(", ")}\n`);
    },
  };
  const broadcast: CommandModule<
    QueryArgs,
    QueryArgs & { file: string; "broadcast-mode"?: string; wait: boolean }
  > = {
    command: "broadcast <file>",
    describe: "Broadcast a signed transaction file",
    builder: (y: Argv) =>
      y
        .options(queryOptions)
        .option("broadcast-mode", { alias: "b", type: "string", choices: ["sync", "async"] })
        .option("wait", {
          type: "boolean",
          default: false,
          describe: "wait until the transaction is in a block",
        }) as never,
    handler: async (args) => {
      const tx = readTxFile(args.file, types);
      const unsigned = signersOf(tx, types, chainPrefix(args.home)).filter(
        (_, i) => !tx.signatures[i]?.length,
      );
      if (unsigned.length > 0)
        throw new CliError(`transaction is not fully signed: still to sign: ${unsigned.join(", ")}`);
      const bytes = rawBytes(tx);
      const client = nodeClient(args);
      const async = (args["broadcast-mode"] ?? clientDefaults(args.home).broadcastMode) === "async";
      const res = await call(() => (async ? client.broadcastAsync(bytes) : client.broadcastSync(bytes)));
      if (res.code !== 0)
        throw new CliError(
          `transaction ${res.hash} rejected (code ${res.code}, ${res.codespace}): ${res.log}`,
        );
      printJson(args, args.wait ? await committedTx(client, res.hash) : broadcastTxResponse(res.hash, res));
    },
  };
  const encode: CommandModule<QueryArgs, QueryArgs & { file: string }> = {
    command: "encode <file>",
    describe: "Encode a JSON transaction as base64 TxRaw bytes",
    builder: (y: Argv) => y.options(queryOptions) as never,
    handler: (args) => {
      process.stdout.write(`${Buffer.from(rawBytes(readTxFile(args.file, types))).toString("base64")}\n`);
    },
  };
  const decode: CommandModule<QueryArgs, QueryArgs & { tx: string }> = {
    command: "decode <tx>",
    describe: "Decode base64 TxRaw bytes as a JSON transaction",
    builder: (y: Argv) => y.options(queryOptions) as never,
    handler: (args) => {
      try {
        const raw = fromBinary(TxRawSchema, Buffer.from(args.tx, "base64"));
        const tx = create(TxSchema, {
          body: fromBinary(TxBodySchema, raw.bodyBytes),
          authInfo: fromBinary(AuthInfoSchema, raw.authInfoBytes),
          signatures: raw.signatures,
        });
        process.stdout.write(`${JSON.stringify(txJson(tx, types))}\n`);
      } catch (e) {
        throw new CliError(`cannot decode transaction: ${(e as Error).message}`);
      }
    },
  };
  const simulate: CommandModule<QueryArgs, QueryArgs & { file: string }> = {
    command: "simulate <file>",
    describe: "Simulate a transaction file on the node and print the gas it uses",
    builder: (y: Argv) => y.options(queryOptions) as never,
    handler: async (args) => {
      const req = toBinary(
        SimulateRequestSchema,
        create(SimulateRequestSchema, { txBytes: rawBytes(readTxFile(args.file, types)) }),
      );
      const r = await call(() => nodeClient(args).query("/sdk.tx.v1beta1.Service/Simulate", req));
      const res = fromBinary(SimulateResponseSchema, r.value);
      printJson(args, {
        gas_info: {
          gas_wanted: String(res.gasInfo?.gasWanted ?? 0n),
          gas_used: String(res.gasInfo?.gasUsed ?? 0n),
        },
      });
    },
  };
  return [sign, multisignCommand(types, TOOLS), broadcast, encode, decode, simulate] as never;
}
