import { readFileSync, writeFileSync } from "node:fs";
import { create, toBinary } from "@bufbuild/protobuf";
import { LegacyAminoPubKeySchema } from "@chaind/proto/sdk/crypto/multisig/keys_pb";
import { MultiSignatureSchema } from "@chaind/proto/sdk/crypto/multisig/v1beta1/multisig_pb";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import {
  AuthInfoSchema,
  SignerInfoSchema,
  type Tx,
  TxBodySchema,
  TxSchema,
} from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import type { Argv, CommandModule } from "yargs";
import { rewriteAnyTypeUrls } from "../app/any-namespace.js";
import { anyNamespace } from "../app/proto-json.js";
import type { TypeRegistry } from "../app/type-registry.js";
import { chainAccount } from "../client/chain-account.js";
import { chainPrefix } from "../client/chain-prefix.js";
import { CliError } from "../client/cli-error.js";
import { keyringOptions, withCliKeyring } from "../client/cli-keyring.js";
import type { KeySigner, MultiKeyInfo } from "../client/keyring/keyring.js";
import { type QueryArgs, queryOptions } from "../client/query-options.js";
import { cliSignBytes } from "../client/sign-mode-option.js";
import { noteSigned, signingChainId } from "../client/signing-chain.js";
import { verifySecp256k1 } from "../crypto/secp256k1.js";

/** What `tx sign --multisig` and `tx multisign` share with the other tx file commands. */
export interface TxFileTools {
  readTxFile(file: string, types: TypeRegistry): Tx;
  signersOf(tx: Tx, types: TypeRegistry, prefix: string): string[];
  txJson(tx: Tx, types: TypeRegistry): unknown;
  call<T>(fn: () => Promise<T>): Promise<T>;
}

/** The account a multisig signature is for: its number and sequence, from the node or from -a and -s. */
interface SigningAccount {
  chainId: string;
  accountNumber: bigint;
  sequence: bigint;
}

interface AccountArgs extends QueryArgs {
  "chain-id"?: string;
  offline: boolean;
  "account-number"?: number;
  sequence?: number;
}

async function signingAccount(args: AccountArgs, address: string): Promise<SigningAccount> {
  const chainId = signingChainId(args["chain-id"], args.home);
  if (args.offline) {
    if (args["account-number"] === undefined || args.sequence === undefined)
      throw new CliError("--offline needs --account-number (-a) and --sequence (-s)");
    return { chainId, accountNumber: BigInt(args["account-number"]), sequence: BigInt(args.sequence) };
  }
  const { accountNumber, sequence } = await chainAccount(args, address);
  return { chainId, accountNumber, sequence };
}

/** The amino JSON sign bytes of the file's tx for the multisig account (they cover no signer info). */
function aminoSignBytes(tx: Tx, account: SigningAccount, types: TypeRegistry): Uint8Array {
  return cliSignBytes(
    SignMode.LEGACY_AMINO_JSON,
    toBinary(TxBodySchema, tx.body ?? create(TxBodySchema)),
    toBinary(AuthInfoSchema, tx.authInfo ?? create(AuthInfoSchema)),
    account,
    types,
  );
}

/** One member's signature file, in the shape Cosmos's `tx sign --multisig` writes. */
interface SignatureFile {
  signatures: {
    public_key: { "@type": string; key: string };
    data: { single: { mode: string; signature: string } };
    sequence: string;
  }[];
}

/**
 * `tx sign <file> --from <member> --multisig <multisig>`: the member's amino JSON signature on behalf of the
 * multisig account, written as a signature file for `tx multisign` (the tx file itself is not changed).
 */
export async function signAsMultisigMember(
  args: AccountArgs & { file: string; from: string; multisig: string; "output-document"?: string },
  types: TypeRegistry,
  tools: TxFileTools,
): Promise<void> {
  const tx = tools.readTxFile(args.file, types);
  const prefix = chainPrefix(args.home);
  // The member as listed (no passphrase) until the node has given the account: a node that is down is reported
  // before any prompt, as the SDK does.
  const { key, multisig } = await withCliKeyring(args, prefix, async (ring) => {
    const member = await ring.get(args.from);
    if (member.type !== "local")
      throw new CliError(
        `key "${member.name}" is a multisig key: its members sign (tx sign --multisig), then tx multisign combines them`,
      );
    const held = (await ring.exists(args.multisig)) ? await ring.get(args.multisig) : undefined;
    return { key: member, multisig: held };
  });
  const address = multisig?.address ?? args.multisig;
  if (multisig?.type === "local")
    throw new CliError(`--multisig: key "${args.multisig}" is not a multisig key`);
  if (multisig && !multisig.multisig.keys.some((k) => Buffer.from(k).equals(Buffer.from(key.pubKey))))
    throw new CliError(`${args.from} is not a member of the multisig key "${multisig.name}"`);
  if (!tools.signersOf(tx, types, prefix).includes(address))
    throw new CliError(`the multisig account ${address} is not among the signers of this transaction`);
  const account = await signingAccount(args, address);
  const signer: KeySigner = await withCliKeyring(args, prefix, (ring) => ring.signer(args.from));
  const out: SignatureFile = {
    signatures: [
      {
        public_key: {
          "@type": "/cosmos.crypto.secp256k1.PubKey",
          key: Buffer.from(key.pubKey).toString("base64"),
        },
        data: {
          single: {
            mode: "SIGN_MODE_LEGACY_AMINO_JSON",
            signature: Buffer.from(signer.sign(aminoSignBytes(tx, account, types))).toString("base64"),
          },
        },
        sequence: String(account.sequence),
      },
    ],
  };
  noteSigned(account.chainId, `${key.address} for the multisig account ${address}`);
  const text = `${JSON.stringify(out)}\n`;
  if (args["output-document"]) writeFileSync(args["output-document"], text);
  else process.stdout.write(text);
}

interface MultisignArgs extends AccountArgs {
  file: string;
  name: string;
  signatures: string[];
  "output-document"?: string;
}

/** `tx multisign <file> <multisig key> <signature files...>`: the tx signed by the multisig account. */
export function multisignCommand(
  types: TypeRegistry,
  tools: TxFileTools,
): CommandModule<QueryArgs, MultisignArgs> {
  return {
    command: "multisign <file> <name> [signatures..]",
    describe: "Combine members' signatures (tx sign --multisig) into the multisig account's signature",
    builder: (y: Argv) =>
      y
        .options(queryOptions)
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
      const tx = tools.readTxFile(args.file, types);
      const prefix = chainPrefix(args.home);
      const info = await withCliKeyring(args, prefix, (ring) => ring.get(args.name));
      if (info.type !== "multi") throw new CliError(`key "${args.name}" is not a multisig key`);
      const signers = tools.signersOf(tx, types, prefix);
      if (signers.length !== 1 || signers[0] !== info.address)
        throw new CliError(
          `the multisig account ${info.address} must be this transaction's only signer (it has: ${signers.join(", ")})`,
        );
      const account = await signingAccount(args, info.address);
      const bytes = aminoSignBytes(tx, account, types);
      const byMember = collectSignatures(args.signatures ?? [], info, bytes, account.sequence);
      if (byMember.size < info.multisig.threshold)
        throw new CliError(`not enough signatures: ${byMember.size} of threshold ${info.multisig.threshold}`);
      tx.authInfo ??= create(AuthInfoSchema);
      tx.authInfo.signerInfos = [multisigSignerInfo(info, [...byMember.keys()], account.sequence, types)];
      // In the namespace of the file, as `tx sign` keeps it.
      rewriteAnyTypeUrls(AuthInfoSchema, tx.authInfo, anyNamespace(TxSchema, tx, types), types);
      const ordered = [...byMember.entries()].sort(([a], [b]) => a - b).map(([, sig]) => sig);
      tx.signatures = [toBinary(MultiSignatureSchema, create(MultiSignatureSchema, { signatures: ordered }))];
      const out = `${JSON.stringify(tools.txJson(tx, types))}\n`;
      if (args["output-document"]) writeFileSync(args["output-document"], out);
      else process.stdout.write(out);
    },
  };
}

/** Each file's signature, checked against the bytes and keyed by its member's index in the multisig key. */
function collectSignatures(
  files: readonly string[],
  info: MultiKeyInfo,
  bytes: Uint8Array,
  sequence: bigint,
): Map<number, Uint8Array> {
  const out = new Map<number, Uint8Array>();
  for (const file of files) {
    let doc: SignatureFile;
    try {
      doc = JSON.parse(readFileSync(file, "utf8")) as SignatureFile;
    } catch (e) {
      throw new CliError(`cannot read signature file ${file}: ${(e as Error).message}`);
    }
    const sig = doc?.signatures?.[0];
    if (!sig?.public_key?.key || sig.data?.single?.mode !== "SIGN_MODE_LEGACY_AMINO_JSON")
      throw new CliError(`${file} is not an amino JSON signature file (tx sign --multisig writes one)`);
    if (sig.sequence !== String(sequence))
      throw new CliError(`${file} signs sequence ${sig.sequence}, but the account is at ${sequence}`);
    const pubKey = Buffer.from(sig.public_key.key, "base64");
    const index = info.multisig.keys.findIndex((k) => pubKey.equals(Buffer.from(k)));
    if (index < 0) throw new CliError(`${file} is signed by a key that is not a member of "${info.name}"`);
    const signature = new Uint8Array(Buffer.from(sig.data.single.signature, "base64"));
    if (!verifySecp256k1(pubKey, bytes, signature))
      throw new CliError(
        `couldn't verify the signature in ${file} (another tx, account number or chain id?)`,
      );
    out.set(index, signature);
  }
  return out;
}

function multisigSignerInfo(info: MultiKeyInfo, signed: number[], sequence: bigint, types: TypeRegistry) {
  const { keys, threshold } = info.multisig;
  const elems = new Uint8Array(Math.ceil(keys.length / 8));
  for (const i of signed) elems[i >> 3] |= 1 << (7 - (i & 7));
  const publicKey = types.pack(
    LegacyAminoPubKeySchema,
    create(LegacyAminoPubKeySchema, {
      threshold,
      publicKeys: keys.map((key) => types.pack(PubKeySchema, create(PubKeySchema, { key }))),
    }),
  );
  return create(SignerInfoSchema, {
    publicKey,
    sequence,
    modeInfo: {
      sum: {
        case: "multi",
        value: {
          bitarray: { extraBitsStored: keys.length % 8, elems },
          modeInfos: signed.map(() => ({
            sum: { case: "single" as const, value: { mode: SignMode.LEGACY_AMINO_JSON } },
          })),
        },
      },
    },
  });
}
