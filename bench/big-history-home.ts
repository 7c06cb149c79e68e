import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { ChainNode } from "chaind/chain/chain-node";
import { signTxDirect } from "chaind/client/direct-signing";
import { type BenchAccount, benchAccount, fillerAddress } from "./bench-accounts.js";
import { BENCH_CHAIN_ID, BENCH_DEFINITION, makeBenchHome } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import { folderSize } from "./folder-size.js";
import { scratchDir } from "./scratch-dir.js";

/** A send from the sender to a filler account every this many blocks, so balances have versions through history. */
export const SEND_EVERY = 100;

export interface BigHistoryHome {
  home: string;
  dataDir: string;
  blocks: number;
  accounts: number;
  sender: BenchAccount;
  /** The filler account whose balance changes most often (every send goes to it). */
  receiver: string;
  buildSeconds: number;
  /** Data folder bytes after genesis (InitChain and block 1), and at the end. */
  bytesAfterGenesis: number;
  bytesAtEnd: number;
  remove(): void;
}

async function build(opts: BenchOptions): Promise<BigHistoryHome> {
  const t0 = performance.now();
  const dir = scratchDir("history");
  const sender = benchAccount("bench-history-sender");
  const receiver = fillerAddress(0);
  makeBenchHome({
    home: dir.path,
    funded: [sender.address],
    fillerAccounts: opts.accounts - 1,
    pruning: "nothing",
    timeoutCommitMs: 1000,
  });
  const node = await ChainNode.open(
    { home: dir.path, definition: BENCH_DEFINITION },
    { logger: silentLogger },
  );
  let bytesAfterGenesis = 0;
  try {
    await node.producer.produce();
    bytesAfterGenesis = folderSize(node.layout.dbDir).bytes;
    let sequence = 0n;
    // Block 1 holds genesis; `historyBlocks` more follow, so a read `historyBlocks` back still lands on a block.
    for (let h = 2; h <= opts.historyBlocks + 1; h++) {
      if (h % SEND_EVERY === 0) {
        const msg = create(MsgSendSchema, {
          fromAddress: sender.address,
          toAddress: receiver,
          amount: [{ denom: "stake", amount: "1" }],
        });
        const tx = await signTxDirect(
          {
            messages: [
              create(AnySchema, {
                typeUrl: `/${MsgSendSchema.typeName}`,
                value: toBinary(MsgSendSchema, msg),
              }),
            ],
            fee: { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 200_000n },
          },
          [sender.signer(0n, sequence++)],
          BENCH_CHAIN_ID,
        );
        const r = await node.mempool.add(tx);
        if (r.code !== 0) throw new Error(`history send refused: ${r.log}`);
      }
      await node.producer.produce();
    }
  } finally {
    await node.close();
  }
  return {
    home: dir.path,
    dataDir: node.layout.dbDir,
    blocks: opts.historyBlocks + 1,
    accounts: opts.accounts,
    sender,
    receiver,
    buildSeconds: (performance.now() - t0) / 1000,
    bytesAfterGenesis,
    bytesAtEnd: folderSize(node.layout.dbDir).bytes,
    remove: () => dir.remove(),
  };
}

let shared: Promise<BigHistoryHome> | null = null;

/**
 * The chain of sections 3 and 9 (`--history-blocks` blocks, `--accounts` genesis accounts), built in-process once
 * per run; the runner removes it with the other scratch folders.
 */
export function bigHistoryHome(opts: BenchOptions): Promise<BigHistoryHome> {
  shared ??= build(opts);
  return shared;
}
