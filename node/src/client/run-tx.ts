import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { NodeCallError } from "@chaind/core/comet-rpc-client";
import { SimulateRequestSchema, SimulateResponseSchema } from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import { AuthInfoSchema, TxBodySchema, TxRawSchema, TxSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { AddressCodec } from "../app/address-codec.js";
import { rewriteAnyTypeUrls } from "../app/any-namespace.js";
import { parseDecCoins, requiredFee } from "../app/dec-coins.js";
import { toProtoJson } from "../app/proto-json.js";
import { packedTxSigners } from "../app/tx-signers.js";
import type { TypeRegistry } from "../app/type-registry.js";
import { sha256 } from "../crypto/sha256.js";
import { ChainError } from "../errors/chain-error.js";
import { type ChainAccount, chainAccount } from "./chain-account.js";
import { chainPrefix } from "./chain-prefix.js";
import { CliError } from "./cli-error.js";
import { withCliKeyring } from "./cli-keyring.js";
import { parseCoinsArgument } from "./coin-arguments.js";
import { committedTx } from "./committed-tx.js";
import { encodeAuthInfo, encodeBody, type SignerInfoParts, type UnsignedTxParts } from "./direct-signing.js";
import type { KeyInfo } from "./keyring/keyring.js";
import { clientDefaults } from "./query-options.js";
import { nodeClient, printJson } from "./run-query.js";
import { cliSignBytes, signModeOf } from "./sign-mode-option.js";
import { signingChainId } from "./signing-chain.js";
import { checkTxArguments } from "./tx-argument-checks.js";
import type { TxArgs } from "./tx-options.js";
import { broadcastTxResponse } from "./tx-response.js";

/** The fee for a gas limit, from --fees or --gas-prices; both flags are read (and refused) before anything else. */
function feeOf(args: TxArgs): (gas: bigint) => { denom: string; amount: string }[] {
  if (args.fees && args["gas-prices"]) throw new CliError("cannot provide both --fees and --gas-prices");
  if (args.fees) {
    const fees = parseCoinsArgument(args.fees);
    return () => fees;
  }
  if (args["gas-prices"]) {
    let prices: ReturnType<typeof parseDecCoins>;
    try {
      prices = parseDecCoins(args["gas-prices"]);
    } catch (e) {
      throw new CliError((e as Error).message);
    }
    return (gas) => prices.map((p) => ({ denom: p.denom, amount: requiredFee(p, gas).toString() }));
  }
  return () => [];
}

type FromKey = { address: string; pubKey?: Uint8Array; type?: KeyInfo["type"]; name?: string };

/**
 * The `--from` key as the keyring lists it: its address and public key, for which no passphrase is asked (the
 * secret is opened only to sign, once everything else has been checked). With --generate-only, `--from` may also
 * be an address the keyring does not hold (an offline or multisig account).
 */
async function fromKey(args: TxArgs, prefix: string, addresses: AddressCodec): Promise<FromKey> {
  if (!args["generate-only"]) return withCliKeyring(args, prefix, (ring) => ring.get(args.from));
  const held = await withCliKeyring(args, prefix, async (ring) =>
    (await ring.exists(args.from)) ? ring.get(args.from) : undefined,
  );
  if (held) return held;
  try {
    return { address: addresses.toString(addresses.fromString(args.from, "--from address")) };
  } catch {
    throw new CliError(`--from: ${args.from} is neither a key in the keyring nor a ${prefix} address`);
  }
}

/**
 * Builds, signs and broadcasts a tx from the `--from` key (or prints it unsigned with --generate-only), the
 * generate / sign / broadcast steps of Cosmos in one go. Failures print one line and exit non-zero. In the SDK's
 * order: the arguments are checked first (no passphrase asked, nothing sent), then the node is asked for the
 * account, and only then is the passphrase asked, so a node that is down is reported before any prompt.
 */
export async function runTx(
  args: TxArgs,
  types: TypeRegistry,
  buildMsgs: (from: string) => Any[],
): Promise<void> {
  const defaults = clientDefaults(args.home);
  const prefix = chainPrefix(args.home);
  const addresses = new AddressCodec(prefix);
  const key = await fromKey(args, prefix, addresses);
  // A multisig key signs nothing itself: said before the node is asked, as the keyring would say it.
  if (key.type === "multi" && !args["generate-only"])
    throw new CliError(
      `key "${key.name}" is a multisig key: its members sign (tx sign --multisig), then tx multisign combines them`,
    );
  const messages = buildMsgs(key.address);
  checkTxArguments(messages, types, prefix);
  const feeFor = feeOf(args);
  if (args.gas !== "auto" && !/^\d+$/.test(args.gas))
    throw new CliError(`--gas must be a number or "auto", got ${JSON.stringify(args.gas)}`);
  const memo = args.note ?? args.memo;
  const client = nodeClient(args);
  let payer: string | undefined;
  let signers: string[];
  try {
    if (args["fee-payer"])
      payer = addresses.toString(addresses.fromString(args["fee-payer"], "fee payer address"));
    signers = packedTxSigners(messages, payer ?? "", types, addresses);
  } catch (e) {
    if (e instanceof ChainError) throw new CliError(e.message);
    throw e;
  }
  // Only this key can sign here; a fee payer that is another account signs the file with `tx sign`.
  if (signers.length > 1 && !args["generate-only"])
    throw new CliError(
      `this transaction must be signed by ${signers.join(" and ")}: make it with --generate-only, have each signer run \`chaind tx sign\` on the file, then \`chaind tx broadcast\` it`,
    );
  // Asked of the node once each: the simulation needs every signer's, signing needs this key's.
  const accounts = new Map<string, ChainAccount>();
  const accountOf = async (address: string) => {
    const known = accounts.get(address) ?? (await chainAccount(args, address));
    accounts.set(address, known);
    return known;
  };
  let gas: bigint;
  if (args.gas === "auto" || args["dry-run"]) {
    // Every signer's info and sequence, as the node checks them even when simulating; no signatures.
    const infos: SignerInfoParts[] = [];
    for (const s of signers) {
      const acc = await accountOf(s);
      infos.push({
        pubKey: (s === key.address ? key.pubKey : undefined) ?? acc.pubKey,
        sequence: acc.sequence,
      });
    }
    const parts: UnsignedTxParts = { messages, memo, fee: { amount: [], gasLimit: 0n, payer } };
    const sim = toBinary(
      TxRawSchema,
      create(TxRawSchema, {
        bodyBytes: encodeBody(parts),
        authInfoBytes: encodeAuthInfo(parts, infos),
        signatures: signers.map(() => new Uint8Array()),
      }),
    );
    try {
      const r = await client.query(
        "/sdk.tx.v1beta1.Service/Simulate",
        toBinary(SimulateRequestSchema, create(SimulateRequestSchema, { txBytes: sim })),
      );
      const used = fromBinary(SimulateResponseSchema, r.value).gasInfo?.gasUsed ?? 0n;
      gas = BigInt(Math.ceil(Number(used) * args["gas-adjustment"]));
      process.stderr.write(`gas estimate: ${gas}\n`);
    } catch (e) {
      if (e instanceof NodeCallError) throw new CliError(`gas estimation failed: ${e.message}`);
      throw e;
    }
  } else {
    gas = BigInt(args.gas);
  }
  // As the SDK's --dry-run: the simulation's estimate, nothing signed or sent.
  if (args["dry-run"]) return;
  const parts: UnsignedTxParts = { messages, memo, fee: { amount: feeFor(gas), gasLimit: gas, payer } };

  if (args["generate-only"]) {
    const tx = create(TxSchema, {
      body: fromBinary(TxBodySchema, encodeBody(parts)),
      authInfo: fromBinary(AuthInfoSchema, encodeAuthInfo(parts, [])),
      signatures: [],
    });
    // Type URLs in the cosmos namespace, so Cosmos tooling can read, sign and broadcast the file too.
    rewriteAnyTypeUrls(TxSchema, tx, "cosmos", types);
    printJson({ output: "json", home: args.home }, toProtoJson(TxSchema, tx, types));
    return;
  }

  const chainId = signingChainId(args["chain-id"], args.home);
  const mode = signModeOf(args["sign-mode"] ?? "direct");
  const { accountNumber, sequence } = await accountOf(key.address);
  const signer = await withCliKeyring(args, prefix, (ring) => ring.signer(args.from));
  const bodyBytes = encodeBody(parts);
  const authInfoBytes = encodeAuthInfo(parts, [{ pubKey: signer.pubKey, sequence }], mode);
  const signBytes = cliSignBytes(mode, bodyBytes, authInfoBytes, { chainId, accountNumber, sequence }, types);
  const bytes = toBinary(
    TxRawSchema,
    create(TxRawSchema, { bodyBytes, authInfoBytes, signatures: [signer.sign(signBytes)] }),
  );
  const broadcastMode = args["broadcast-mode"] ?? defaults.broadcastMode;
  const res =
    broadcastMode === "async" ? await client.broadcastAsync(bytes) : await client.broadcastSync(bytes);
  const txhash = Buffer.from(sha256(bytes)).toString("hex").toUpperCase();
  if (res.code !== 0)
    throw new CliError(`transaction ${txhash} rejected (code ${res.code}, ${res.codespace}): ${res.log}`);
  if (!args.wait) {
    printJson(args, broadcastTxResponse(txhash, res));
    return;
  }
  printJson(args, await committedTx(client, txhash));
}
