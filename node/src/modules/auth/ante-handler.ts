import { fromBinary } from "@bufbuild/protobuf";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import type { AminoEncoder } from "../../app/amino-types.js";
import { Coins } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import { parseDecCoins, requiredFee } from "../../app/dec-coins.js";
import { typeUrlToSdk } from "../../app/namespace.js";
import type { DecodedTx } from "../../app/tx-decoder.js";
import { txSigners } from "../../app/tx-signers.js";
import { addressFromPubKey } from "../../crypto/address.js";
import { multisigAddress } from "../../crypto/multisig-address.js";
import { SECP256K1_PUBKEY_BYTES, SECP256K1_SIGNATURE_BYTES } from "../../crypto/secp256k1-verify.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import type { BankKeeper } from "../bank/bank-keeper.js";
import type { AccountKeeper, StoredAccount } from "./account-keeper.js";
import { decodeMultisigKey, MULTISIG_PUBKEY, verifyMultisig } from "./multisig-key.js";
import { onlyAminoJson, signBytesFor } from "./sign-mode-bytes.js";
import { SECP256K1_PUBKEY, type SignatureChecks } from "./signature-checks.js";
import { chargeFeeDeductionGas, SIMULATED_SIGNATURE_BYTES, simulatedPubKey } from "./simulation-stand-ins.js";

export const FEE_COLLECTOR = "fee_collector";
const MAX_GAS_WANTED = 2n ** 63n - 1n;

export interface AnteOptions {
  /** Only CheckTx enforces the node's own minimum gas prices. */
  minGasPrices: string;
  /** Genesis `block.max_gas`: no tx may ask for more gas than a block holds (0 or less: no limit). */
  maxBlockGas?: bigint;
}

/** The checks every tx passes before its messages run; its effects (fee, sequence) stick. */
export type AnteHandler = (ctx: Context, tx: DecodedTx, simulate: boolean) => Promise<void>;

const err = ChainError.wrap;
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

/**
 * Cosmos' ante chain in its order: basic validity, timeout height, memo, size gas, fee deduction (and minimum
 * gas prices on CheckTx), public keys, signature count, signature gas, signatures and sequences, sequence + 1.
 */
export function createAnteHandler(
  accounts: AccountKeeper,
  bank: BankKeeper,
  opts: AnteOptions,
  amino: AminoEncoder,
  // Shared by CheckTx, recheck and delivery: a tx's signature is checked once on its way into a block.
  signatures: SignatureChecks,
): AnteHandler {
  const minGasPrices = parseDecCoins(opts.minGasPrices);
  return async (ctx, tx, simulate) => {
    const params = await accounts.getParams(ctx);
    const fee = tx.authInfo.fee;
    const gasLimit = fee?.gasLimit ?? 0n;

    // ValidateBasic
    if (tx.msgs.length === 0) throw err(SdkErrors.InvalidRequest, "must contain at least one message");
    if (gasLimit > MAX_GAS_WANTED)
      throw err(SdkErrors.InvalidRequest, `invalid gas supplied; ${gasLimit} > ${MAX_GAS_WANTED}`);
    // It could never be proposed, and would wait in the mempool for ever. A simulation ignores the tx's gas
    // limit (it runs under its own, simulation-limits.ts), so this one too.
    const maxBlockGas = opts.maxBlockGas ?? 0n;
    if (!simulate && maxBlockGas > 0n && gasLimit > maxBlockGas)
      throw err(SdkErrors.InvalidGasLimit, `tx gas limit ${gasLimit} exceeds block max gas ${maxBlockGas}`);
    // As the SDK takes a tx's fee: zero amounts are allowed ("0stake" is a zero fee, which CosmJS and Keplr
    // send) and charge nothing; the texts print the fee as given.
    const givenFee = fee?.amount ?? [];
    const feeText = givenFee
      .map((c) => `${/^\d+$/.test(c.amount) ? BigInt(c.amount) : c.amount}${c.denom}`)
      .join(",");
    let feeCoins: Coins;
    try {
      feeCoins = Coins.from(givenFee.filter((c) => !/^0+$/.test(c.amount)));
    } catch (e) {
      throw err(SdkErrors.InsufficientFee, `invalid fee provided: ${(e as Error).message}`);
    }
    // The fee payer is among the signers, so it signs with its own signer info, sequence and signature.
    const signers = txSigners(tx.msgs, fee?.payer ?? "", accounts.addresses);
    // A multi-send without inputs names no one: nothing would be authorized, and no one would pay.
    if (signers.length === 0)
      throw err(SdkErrors.NoSignatures, "tx has no signers: no message names an account that signs it");
    if (tx.raw.signatures.length === 0 && !simulate) throw err(SdkErrors.NoSignatures);
    if (!simulate && tx.raw.signatures.length !== signers.length) {
      throw err(
        SdkErrors.Unauthorized,
        `wrong number of signers; expected ${signers.length}, got ${tx.raw.signatures.length}`,
      );
    }
    if (tx.authInfo.signerInfos.length !== signers.length) {
      throw err(
        SdkErrors.Unauthorized,
        `wrong number of signer infos; expected ${signers.length}, got ${tx.authInfo.signerInfos.length}`,
      );
    }
    if (tx.body.extensionOptions.length > 0)
      throw err(SdkErrors.UnknownExtensionOptions, "unknown extension options");

    // TxTimeoutHeight
    const timeout = tx.body.timeoutHeight;
    if (timeout > 0n && BigInt(ctx.block.height) > timeout) {
      throw err(SdkErrors.TxTimeoutHeight, `block height: ${ctx.block.height}, timeout height: ${timeout}`);
    }

    // ValidateMemo
    const memoLen = [...tx.body.memo].length;
    if (BigInt(memoLen) > params.maxMemoCharacters) {
      throw err(
        SdkErrors.MemoTooLarge,
        `maximum number of characters is ${params.maxMemoCharacters} but received ${memoLen} characters`,
      );
    }

    // ConsumeGasForTxSize
    ctx.gasMeter.consume(Number(params.txSizeCostPerByte) * tx.bytes.length, "txSize");
    if (simulate) {
      // The signatures delivery will carry: one placeholder's bytes for each one missing here.
      for (let i = 0; i < signers.length; i++) {
        if ((tx.raw.signatures[i]?.length ?? 0) > 0) continue;
        ctx.gasMeter.consume(Number(params.txSizeCostPerByte) * SIMULATED_SIGNATURE_BYTES, "txSize");
      }
    }

    // DeductFee
    if (!simulate && ctx.block.height > 0 && gasLimit === 0n)
      throw err(SdkErrors.InvalidGasLimit, "must provide positive gas");
    if (ctx.mode === "check" && !simulate && minGasPrices.length > 0) {
      const required = minGasPrices.map((p) => ({ denom: p.denom, amount: requiredFee(p, gasLimit) }));
      const covered = required.some((r) => r.amount === 0n || feeCoins.amountOf(r.denom) >= r.amount);
      if (!covered) {
        const req = required.map((r) => `${r.amount}${r.denom}`).join(",");
        throw err(SdkErrors.InsufficientFee, `insufficient fees; got: ${feeText} required: ${req}`);
      }
    }
    if (fee?.granter) throw err(SdkErrors.InvalidRequest, "fee grants are not enabled on this chain");
    // Charged here, checked below: a payer that did not sign fails the signature checks, and the whole ante
    // branch, this deduction included, is dropped.
    const payerAddr = accounts.addresses.fromString(fee?.payer || signers[0], "fee payer address");
    const payer = accounts.addresses.toString(payerAddr);
    if (!(await accounts.hasAccount(ctx, payerAddr)))
      throw err(SdkErrors.UnknownAddress, `fee payer address: ${payer} does not exist`);
    const deductFee = async (c: Context, coins: Coins) => {
      // Read here and again by the transfer, as every release before did: the gas of a fee stays what it was.
      await accounts.ensureModuleAccount(c, FEE_COLLECTOR);
      try {
        await bank.sendCoinsFromAccountToModule(c, payerAddr, FEE_COLLECTOR, coins);
      } catch (e) {
        if (e instanceof ChainError && e.abciCode === SdkErrors.InsufficientFunds.code) {
          const detail = e.message.replace(/: insufficient funds$/, "");
          throw err(SdkErrors.InsufficientFunds, `insufficient funds to pay for fees; ${detail}`);
        }
        throw e;
      }
    };
    if (!feeCoins.isEmpty) await deductFee(ctx, feeCoins);
    else if (simulate) await chargeFeeDeductionGas(ctx, minGasPrices, deductFee);
    ctx.events.emit("tx", { fee: feeCoins.toString(), fee_payer: payer });

    // SetPubKey, ValidateSigCount, SigGasConsume, SigVerification, IncrementSequence
    if (BigInt(tx.authInfo.signerInfos.length) > params.txSigLimit) {
      throw err(
        SdkErrors.TooManySignatures,
        `signatures: ${tx.authInfo.signerInfos.length}, limit: ${params.txSigLimit}`,
      );
    }
    const loaded: StoredAccount[] = [];
    // Each signer's secp256k1 key when its signer info carried one (the stored key then has the same bytes).
    const sentKeys: (Uint8Array | undefined)[] = [];
    for (const [i, signer] of signers.entries()) {
      const addr = accounts.addresses.fromString(signer, "signer");
      const acc = await accounts.getAccount(ctx, addr);
      if (!acc) throw err(SdkErrors.UnknownAddress, `account ${signer} does not exist`);
      const info = tx.authInfo.signerInfos[i];
      // Simulating without a key for a keyless account: store a placeholder, as delivery will store the key.
      const publicKey =
        info.publicKey ??
        (simulate && !acc.base.pubKey?.value.length ? simulatedPubKey(`/${SECP256K1_PUBKEY}`) : undefined);
      if (publicKey && typeUrlToSdk(publicKey.typeUrl).name === MULTISIG_PUBKEY) {
        const m = decodeMultisigKey(publicKey.value, Number(params.txSigLimit));
        if (!sameBytes(multisigAddress(m), addr))
          throw err(
            SdkErrors.InvalidPubKey,
            `pubKey does not match signer address ${signer} with signer index: ${i}`,
          );
        const existing = acc.base.pubKey;
        if (existing?.value.length && !sameBytes(existing.value, publicKey.value))
          throw err(SdkErrors.InvalidPubKey, `account ${signer} already has a different public key`);
        if (!existing?.value.length) acc.base.pubKey = { ...publicKey, typeUrl: `/${MULTISIG_PUBKEY}` };
      } else if (publicKey) {
        if (typeUrlToSdk(publicKey.typeUrl).name !== SECP256K1_PUBKEY) {
          throw err(SdkErrors.InvalidPubKey, `unrecognized public key type: ${publicKey.typeUrl}`);
        }
        const pk = fromBinary(PubKeySchema, publicKey.value);
        if (pk.key.length !== SECP256K1_PUBKEY_BYTES)
          throw err(SdkErrors.InvalidPubKey, `invalid secp256k1 public key length ${pk.key.length}`);
        if (info.publicKey && !sameBytes(addressFromPubKey(pk.key), addr)) {
          throw err(
            SdkErrors.InvalidPubKey,
            `pubKey does not match signer address ${signer} with signer index: ${i}`,
          );
        }
        const existing = acc.base.pubKey;
        // The stored key's bytes are usually the very bytes sent: decode it only when they differ.
        if (
          existing &&
          existing.value.length > 0 &&
          !sameBytes(existing.value, publicKey.value) &&
          !sameBytes(fromBinary(PubKeySchema, existing.value).key, pk.key)
        ) {
          throw err(SdkErrors.InvalidPubKey, `account ${signer} already has a different public key`);
        }
        if (!existing || existing.value.length === 0) {
          acc.base.pubKey = { ...publicKey, typeUrl: `/${SECP256K1_PUBKEY}` };
        }
        sentKeys[i] = pk.key;
      } else if (!acc.base.pubKey && !simulate) {
        throw err(SdkErrors.InvalidPubKey, `pubkey on account ${signer} is not set`);
      }
      loaded.push(acc);
    }

    for (const [i, acc] of loaded.entries()) {
      const info = tx.authInfo.signerInfos[i];
      const signerData = {
        chainId: ctx.block.chainId,
        accountNumber: ctx.block.height === 0 ? 0n : acc.base.accountNumber,
        sequence: acc.base.sequence,
      };
      const stored = acc.base.pubKey;
      const multisig =
        stored && typeUrlToSdk(stored.typeUrl).name === MULTISIG_PUBKEY
          ? decodeMultisigKey(stored.value, Number(params.txSigLimit))
          : undefined;
      // One secp256k1 verification per signature; a multisig simulation is charged its threshold.
      ctx.gasMeter.consume(
        (multisig?.threshold ?? 1) * Number(params.sigVerifyCostSecp256k1),
        multisig ? "ante verify: multisig" : "ante verify: secp256k1",
      );
      if (info.sequence !== acc.base.sequence) {
        throw err(
          SdkErrors.WrongSequence,
          `account sequence mismatch, expected ${acc.base.sequence}, got ${info.sequence}`,
        );
      }
      if (multisig && !simulate) {
        if (info.modeInfo?.sum.case !== "multi")
          throw err(
            SdkErrors.Unauthorized,
            `account ${acc.base.address} is a multisig: it signs with a multi mode info`,
          );
        const checked = verifyMultisig(multisig, info.modeInfo.sum.value, tx.raw.signatures[i], (modeInfo) =>
          signBytesFor(modeInfo, tx, signerData, amino),
        );
        // Signatures beyond the threshold cost as much as the rest.
        ctx.gasMeter.consume(
          (checked - multisig.threshold) * Number(params.sigVerifyCostSecp256k1),
          "ante verify: multisig",
        );
      } else if (!simulate) {
        const sig = tx.raw.signatures[i];
        if (sig?.length !== SECP256K1_SIGNATURE_BYTES)
          throw err(
            SdkErrors.Unauthorized,
            `signature verification failed: a secp256k1 signature is ${SECP256K1_SIGNATURE_BYTES} bytes, got ${sig?.length ?? 0}`,
          );
        const signBytes = signBytesFor(info.modeInfo, tx, signerData, amino);
        const pub = sentKeys[i] ?? fromBinary(PubKeySchema, acc.base.pubKey!.value).key;
        if (!signatures.verify(pub, signBytes, tx.raw.signatures[i], signerData.accountNumber)) {
          // SDK 0.50's texts: amino JSON sign bytes carry the sequence, so it is named; direct ones end with the
          // verifier's reason.
          const { accountNumber, chainId } = signerData;
          throw err(
            SdkErrors.Unauthorized,
            onlyAminoJson(info.modeInfo)
              ? `signature verification failed; please verify account number (${accountNumber}), sequence (${acc.base.sequence}) and chain-id (${chainId})`
              : `signature verification failed; please verify account number (${accountNumber}) and chain-id (${chainId}): (unable to verify single signer signature)`,
          );
        }
      }
      ctx.events.emit("tx", { acc_seq: `${acc.base.address}/${acc.base.sequence}` });
      const sig = tx.raw.signatures[i];
      // Read in place: Buffer.from(sig) would copy it first.
      if (sig)
        ctx.events.emit("tx", {
          signature: Buffer.from(sig.buffer, sig.byteOffset, sig.length).toString("base64"),
        });
      acc.base.sequence += 1n;
      accounts.setAccount(ctx, acc);
    }
  };
}
