import { create, type DescMessage, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import type { TestAccount } from "./test-home.js";

/** Packs a message as an Any with its `/sdk.` type URL. */
export function anyOf<D extends DescMessage>(schema: D, init: MessageInitShape<D>): Any {
  return create(AnySchema, { typeUrl: `/${schema.typeName}`, value: toBinary(schema, create(schema, init)) });
}

/** Signs messages for one account, tracking its sequence across calls. */
export class TxSigner {
  private sequence = 0n;

  constructor(
    readonly account: TestAccount,
    private readonly accountNumber: bigint,
    private readonly chainId: string,
  ) {}

  async sign(messages: Any[], fee = "2000", gas = 400_000n): Promise<Uint8Array> {
    const tx = await signTxDirect(
      { messages, fee: { amount: [{ denom: "stake", amount: fee }], gasLimit: gas } },
      [this.account.signer(this.accountNumber, this.sequence)],
      this.chainId,
    );
    this.sequence++;
    return tx;
  }
}
