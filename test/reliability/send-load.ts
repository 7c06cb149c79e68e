import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import {
  QueryAccountRequestSchema,
  QueryAccountResponseSchema,
} from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { signTxDirect } from "../../node/src/client/direct-signing.js";
import { anyOf } from "../node/helpers/signed-tx.js";
import type { TestAccount } from "../node/helpers/test-home.js";

/** A send the node reported as committed: the evidence a crash must not take back. */
export interface IncludedTx {
  hash: string;
  height: number;
}

/**
 * Signed bank sends from several accounts at once, each through `broadcast_tx_commit`, for as long as it runs.
 * Every send the node reports committed is recorded; any other answer (the node killed, halted or busy) is
 * recorded and the sender asks the chain for its sequence again before the next send.
 */
export class SendLoad {
  readonly included: IncludedTx[] = [];
  /** When (performance.now()) each send failed, and why. */
  readonly failures: { at: number; why: string }[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly rpcUrl: string,
    private readonly chainId: string,
    private readonly senders: TestAccount[],
    private readonly recipient: string,
  ) {}

  start(): void {
    this.running = true;
    this.loops = this.senders.map((s) => this.loop(s));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(sender: TestAccount): Promise<void> {
    const rpc = new NodeRpcClient(this.rpcUrl);
    let account: { accountNumber: bigint; sequence: bigint } | null = null;
    while (this.running) {
      try {
        account ??= await this.account(rpc, sender.address);
        const tx = await signTxDirect(
          {
            messages: [
              anyOf(MsgSendSchema, {
                fromAddress: sender.address,
                toAddress: this.recipient,
                amount: [{ denom: "stake", amount: "1" }],
              }),
            ],
            fee: { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 200_000n },
          },
          [sender.signer(account.accountNumber, account.sequence)],
          this.chainId,
        );
        const r = await rpc.call<{ hash: string; height: string; tx_result: { code: number } }>(
          "broadcast_tx_commit",
          { tx: Buffer.from(tx).toString("base64") },
        );
        if (r.tx_result.code === 0 && Number(r.height) > 0) {
          this.included.push({ hash: r.hash, height: Number(r.height) });
          account.sequence++;
        } else {
          this.failures.push({ at: performance.now(), why: `tx code ${r.tx_result.code}` });
          account = null;
        }
      } catch (e) {
        this.failures.push({ at: performance.now(), why: (e as Error).message });
        account = null;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  private async account(rpc: NodeRpcClient, address: string) {
    const req = toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address }));
    const any = fromBinary(
      QueryAccountResponseSchema,
      (await rpc.query("/sdk.auth.v1beta1.Query/Account", req)).value,
    ).account!;
    const base = fromBinary(BaseAccountSchema, any.value);
    return { accountNumber: base.accountNumber, sequence: base.sequence };
  }
}
