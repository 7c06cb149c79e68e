import { NodeCallError, type NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { CliError } from "./cli-error.js";
import { committedTxResponse, type TxResponseJson } from "./tx-response.js";

/** How long `--wait` waits for a tx to be in a block. */
const WAIT_TIMEOUT_MS = 60_000;

/**
 * `--wait`: the tx as the block committed it (dots on a terminal meanwhile); a tx that failed in its block is
 * an error naming the block, its code and log, as the fee was charged anyway.
 */
export async function committedTx(client: NodeRpcClient, txhash: string): Promise<TxResponseJson> {
  const spinner = process.stderr.isTTY ? setInterval(() => process.stderr.write("."), 500) : undefined;
  try {
    const done = await client.waitForTx(txhash, WAIT_TIMEOUT_MS);
    if (done.tx_result.code !== 0)
      throw new CliError(
        `transaction ${txhash} failed in block ${done.height} (code ${done.tx_result.code}, ${done.tx_result.codespace}): ${done.tx_result.log}`,
      );
    // The events too, as Cosmos prints them for a committed tx: a proposal id, a new validator, are in them.
    const block = await client.call<{ block?: { header?: { time?: string } } }>("block", {
      height: done.height,
    });
    return committedTxResponse(txhash, done, block.block?.header?.time ?? "");
  } catch (e) {
    if (e instanceof NodeCallError) throw new CliError(`waiting for ${txhash}: ${e.message}`);
    throw e;
  } finally {
    if (spinner) {
      clearInterval(spinner);
      process.stderr.write("\n");
    }
  }
}
