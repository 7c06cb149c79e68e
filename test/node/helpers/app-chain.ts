import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import {
  QueryAccountRequestSchema,
  QueryAccountResponseSchema,
} from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import {
  QueryAllBalancesRequestSchema,
  QueryAllBalancesResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import type { FinalizeBlockResult } from "../../../node/src/app/app.js";
import type { TxResult } from "../../../node/src/app/tx-result.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { makeTestHome, TEST_DEFINITION } from "./test-home.js";

/**
 * An in-process chain whose blocks are made through the App itself (finalizeBlock + commit), so a test can put
 * in a block a tx that CheckTx refused, as a malicious block proposer could.
 */
export class AppChain {
  private constructor(
    readonly node: ChainNode,
    readonly chainId: string,
    private readonly cleanup: () => void,
  ) {}

  static async open(opts: Parameters<typeof makeTestHome>[0]): Promise<AppChain> {
    const home = makeTestHome(opts);
    const node = await ChainNode.open(
      { home: home.home, definition: TEST_DEFINITION },
      { logger: silentLogger },
    );
    const chain = new AppChain(node, home.chainId, home.cleanup);
    await chain.deliver([]);
    return chain;
  }

  check(tx: Uint8Array): Promise<TxResult> {
    return this.node.app.checkTx(tx);
  }

  /** Executes and commits the next block with exactly these txs; answers their results. */
  async deliver(txs: Uint8Array[], time = new Date()): Promise<TxResult[]> {
    return (await this.block(txs, time)).txResults;
  }

  /** The same, answering everything the block's execution returned (its events too). */
  async block(txs: Uint8Array[], time = new Date()): Promise<FinalizeBlockResult> {
    const { app, store, signer } = this.node;
    const result = await app.finalizeBlock({
      height: store.latestHeight + 1,
      time,
      txs,
      proposerAddress: signer.address,
    });
    await app.commit();
    return result;
  }

  async balance(address: string, denom = "stake"): Promise<bigint> {
    const req = toBinary(QueryAllBalancesRequestSchema, create(QueryAllBalancesRequestSchema, { address }));
    const res = await this.node.app.query("/sdk.bank.v1beta1.Query/AllBalances", req);
    const coin = fromBinary(QueryAllBalancesResponseSchema, res.value).balances.find(
      (c) => c.denom === denom,
    );
    return BigInt(coin?.amount ?? "0");
  }

  async account(address: string): Promise<{ accountNumber: bigint; sequence: bigint; pubKey?: Uint8Array }> {
    const req = toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address }));
    const res = await this.node.app.query("/sdk.auth.v1beta1.Query/Account", req);
    const base = fromBinary(
      BaseAccountSchema,
      fromBinary(QueryAccountResponseSchema, res.value).account!.value,
    );
    const pubKey = base.pubKey ? fromBinary(PubKeySchema, base.pubKey.value).key : undefined;
    return { accountNumber: base.accountNumber, sequence: base.sequence, pubKey };
  }

  async close(): Promise<void> {
    await this.node.close();
    this.cleanup();
  }
}
