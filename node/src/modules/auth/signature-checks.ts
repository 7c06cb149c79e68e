import { fromBinary } from "@bufbuild/protobuf";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import type { AminoEncoder } from "../../app/amino-types.js";
import { BoundedMap } from "../../app/bounded-map.js";
import { typeUrlToSdk } from "../../app/namespace.js";
import type { DecodedTx } from "../../app/tx-decoder.js";
import type { ParallelVerifier } from "../../crypto/parallel-verifier.js";
import { secp256k1Shaped } from "../../crypto/secp256k1-verify.js";
import { VerifiedSignatures } from "../../crypto/verified-signatures.js";
import { mapKey } from "../../store/map-key.js";
import { signBytesFor } from "./sign-mode-bytes.js";

export const SECP256K1_PUBKEY = "sdk.crypto.secp256k1.PubKey";

/** Signers whose account number is remembered: about as many as the verified signatures kept. */
const REMEMBERED_SIGNERS = 50_000;

/**
 * A tx with more signers than this (the SDK's default tx_sig_limit) is left to the ante handler, which refuses
 * it over the chain's limit before verifying anything: a stranger's tx must not buy more verifications here.
 */
const MAX_PRECHECKED_SIGNERS = 7;

/**
 * The ante handler's secp256k1 checks, and the precheck that runs most of them before CheckTx on the signature
 * thread. Sign bytes name the signer's account number, which only the state knows; the precheck takes the one
 * the ante handler last saw for the same key. A stale or missing one only means the ante handler verifies inline:
 * the precheck adds nothing but true answers to the verified signatures, which are keyed by all they depend on.
 */
export class SignatureChecks {
  private readonly verified = new VerifiedSignatures();
  private readonly accountNumbers = new BoundedMap<string, bigint>(REMEMBERED_SIGNERS);

  constructor(
    private readonly amino: AminoEncoder,
    private readonly parallel?: Pick<ParallelVerifier, "verify">,
  ) {}

  /** One signature, as the ante handler checks it against the state's account number. */
  verify(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array, accountNumber: bigint): boolean {
    if (!this.verified.verify(pubKey33, signBytes, sig)) return false;
    this.accountNumbers.set(mapKey(pubKey33), accountNumber);
    return true;
  }

  /**
   * Verifies on the signature thread each single secp256k1 signature of `tx` whose signer info carries its key
   * and whose signer has signed before, for a tx of at most MAX_PRECHECKED_SIGNERS signers. Never throws: what it
   * skips or finds invalid, the ante handler checks.
   */
  async precheck(tx: DecodedTx, chainId: string): Promise<void> {
    const parallel = this.parallel;
    if (!parallel || tx.authInfo.signerInfos.length > MAX_PRECHECKED_SIGNERS) return;
    const pending: Promise<void>[] = [];
    for (const [i, info] of tx.authInfo.signerInfos.entries()) {
      const sig = tx.raw.signatures[i];
      const key = info.publicKey;
      if (!key || typeUrlToSdk(key.typeUrl).name !== SECP256K1_PUBKEY) continue;
      let pubKey33: Uint8Array;
      let signBytes: Uint8Array;
      try {
        pubKey33 = fromBinary(PubKeySchema, key.value).key;
        const accountNumber = this.accountNumbers.get(mapKey(pubKey33));
        if (!secp256k1Shaped(pubKey33, sig) || accountNumber === undefined) continue;
        signBytes = signBytesFor(
          info.modeInfo,
          tx,
          { chainId, accountNumber, sequence: info.sequence },
          this.amino,
        );
      } catch {
        continue;
      }
      pending.push(
        parallel.verify({ pubKey33, signBytes, sig }).then((valid) => {
          if (valid) this.verified.remember(pubKey33, signBytes, sig);
        }),
      );
    }
    await Promise.all(pending);
  }
}
