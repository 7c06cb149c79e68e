import { readFileSync, writeFileSync } from "node:fs";
import { create, fromBinary, type JsonValue, toBinary } from "@bufbuild/protobuf";
import type { Argv, CommandModule } from "yargs";
import { rewriteAnyTypeUrls } from "../app/any-namespace.js";
import { anyNamespace, fromProtoJson, toProtoJson } from "../app/proto-json.js";
import type { TypeRegistry } from "../app/type-registry.js";
import { directSignBytes, secp256k1PubKeyAny } from "../client/direct-signing.js";
import { NodeCallError } from "../client/node-rpc-client.js";
import { BaseAccountSchema } from "../gen/sdk/auth/v1beta1/auth_pb.js";
import { QueryAccountRequestSchema, QueryAccountResponseSchema } from "../gen/sdk/auth/v1beta1/query_pb.js";
import { SignMode } from "../gen/sdk/tx/signing/v1beta1/signing_pb.js";
import { SimulateRequestSchema, SimulateResponseSchema } from "../gen/sdk/tx/v1beta1/service_pb.js";
import { AuthInfoSchema, type Tx, TxBodySchema, TxRawSchema, TxSchema } from "../gen/sdk/tx/v1beta1/tx_pb.js";
import { CliError } from "./cli-error.js";
import { keyringOptions, withCliKeyring } from "./cli-keyring.js";
import { clientDefaults, type QueryArgs, queryOptions } from "./query-options.js";
import { nodeClient, printJson } from "./run-query.js";

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

const txJson = (tx: Tx, types: TypeRegistry) => toProtoJson(TxSchema, tx, types);

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
}

/** `tx sign|broadcast|encode|decode|simulate`: the separate steps of generate, sign, broadcast, on files. */
export function txFileCommands(types: TypeRegistry): CommandModule<QueryArgs, QueryArgs>[] {
  const sign: CommandModule<QueryArgs, SignArgs> = {
    command: "sign <file>",
    describe: "Sign a transaction generated with --generate-only (SIGN_MODE_DIRECT)",
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
        .options(keyringOptions) as never,
    handler: async (args) => {
      const tx = readTxFile(args.file, types);
      const defaults = clientDefaults(args.home);
      const key = await withCliKeyring(args, "sdk", (ring) => ring.signer(args.from));
      let accountNumber: bigint;
      let sequence: bigint;
      let chainId = args["chain-id"] || defaults.chainId;
      if (args.offline) {
        if (args["account-number"] === undefined || args.sequence === undefined)
          throw new CliError("--offline needs --account-number (-a) and --sequence (-s)");
        if (!chainId) throw new CliError("--offline needs --chain-id");
        accountNumber = BigInt(args["account-number"]);
        sequence = BigInt(args.sequence);
      } else {
        const r = await call(() =>
          nodeClient(args).query(
            "/sdk.auth.v1beta1.Query/Account",
            toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address: key.address })),
          ),
        );
        const base = fromBinary(
          BaseAccountSchema,
          fromBinary(QueryAccountResponseSchema, r.value).account!.value,
        );
        accountNumber = base.accountNumber;
        sequence = base.sequence;
        chainId ||= (await call(() => nodeClient(args).status())).node_info.network;
      }
      const authInfo = tx.authInfo ?? create(AuthInfoSchema);
      authInfo.signerInfos = [
        {
          $typeName: "sdk.tx.v1beta1.SignerInfo",
          publicKey: secp256k1PubKeyAny(key.pubKey),
          modeInfo: {
            $typeName: "sdk.tx.v1beta1.ModeInfo",
            sum: {
              case: "single",
              value: { $typeName: "sdk.tx.v1beta1.ModeInfo.Single", mode: SignMode.DIRECT },
            },
          },
          sequence,
        },
      ];
      // Signed in the namespace of the file, so the file's own type URLs are what the signature covers.
      rewriteAnyTypeUrls(AuthInfoSchema, authInfo, anyNamespace(TxSchema, tx, types), types);
      tx.authInfo = authInfo;
      const bodyBytes = toBinary(TxBodySchema, tx.body ?? create(TxBodySchema));
      const authInfoBytes = toBinary(AuthInfoSchema, authInfo);
      tx.signatures = [key.sign(directSignBytes(bodyBytes, authInfoBytes, chainId, accountNumber))];
      const out = `${JSON.stringify(txJson(tx, types))}\n`;
      if (args["output-document"]) writeFileSync(args["output-document"], out);
      else process.stdout.write(out);
    },
  };
  const broadcast: CommandModule<QueryArgs, QueryArgs & { file: string; "broadcast-mode"?: string }> = {
    command: "broadcast <file>",
    describe: "Broadcast a signed transaction file",
    builder: (y: Argv) =>
      y
        .options(queryOptions)
        .option("broadcast-mode", { alias: "b", type: "string", choices: ["sync", "async"] }) as never,
    handler: async (args) => {
      const bytes = rawBytes(readTxFile(args.file, types));
      const client = nodeClient(args);
      const async = (args["broadcast-mode"] ?? clientDefaults(args.home).broadcastMode) === "async";
      const res = await call(() => (async ? client.broadcastAsync(bytes) : client.broadcastSync(bytes)));
      if (res.code !== 0)
        throw new CliError(
          `transaction ${res.hash} rejected (code ${res.code}, ${res.codespace}): ${res.log}`,
        );
      printJson(args, { txhash: res.hash, code: res.code, raw_log: res.log });
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
  return [sign, broadcast, encode, decode, simulate] as never;
}
