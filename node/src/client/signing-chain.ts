import { CliError } from "./cli-error.js";
import { clientDefaults } from "./query-options.js";

/**
 * The chain the CLI signs for: `--chain-id`, else client.toml's `chain-id`, as the SDK's CLI takes it. Never the
 * chain a node names: `--node` pointing at another chain would get a signature that is valid there.
 */
export function signingChainId(flag: string | undefined, home: string): string {
  const id = flag || clientDefaults(home).chainId;
  if (!id) throw new CliError("chain ID required but not specified");
  return id;
}

/**
 * A signature made to be carried elsewhere (`tx sign`, a multisig member's) is noted on stderr with the chain it
 * is valid on; a command that broadcasts what it signed has the node's answer to show instead.
 */
export function noteSigned(chainId: string, signer: string): void {
  process.stderr.write(`signed for chain ${chainId} by ${signer}\n`);
}
