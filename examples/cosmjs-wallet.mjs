#!/usr/bin/env node
// A wallet's everyday calls against a chaind node with stock CosmJS 0.39: read the chain, send tokens with
// an "auto" fee in both sign modes (direct, and the amino JSON a Ledger signs), and read governance through
// the v1beta1 queries explorers use.
//
//   node examples/cosmjs-wallet.mjs <rpc-url> "<mnemonic of a funded key>" [bech32-prefix]
import { makeCosmoshubPath, Secp256k1HdWallet } from "@cosmjs/amino";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { GasPrice, QueryClient, SigningStargateClient, setupGovExtension } from "@cosmjs/stargate";
import { Comet38Client } from "@cosmjs/tendermint-rpc";

const [rpc, mnemonic, prefix = "sdk"] = process.argv.slice(2);
if (!rpc || !mnemonic) {
  console.error('usage: cosmjs-wallet.mjs <rpc-url> "<mnemonic>" [bech32-prefix]');
  process.exit(2);
}
// The node's default minimum-gas-prices for `chaind init` homes is 0.025stake; testnet homes ask less.
const gasPrice = GasPrice.fromString("0.025stake");

// SIGN_MODE_DIRECT: what Keplr and most scripts sign.
const direct = await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, { prefix });
const [{ address }] = await direct.getAccounts();
const client = await SigningStargateClient.connectWithSigner(rpc, direct, { gasPrice });
console.log(`chain ${await client.getChainId()} at height ${await client.getHeight()}`);
console.log(`${address} holds ${JSON.stringify(await client.getAllBalances(address))}`);

// A second account of the same mnemonic receives; "auto" simulates, then pays for 1.4 times the gas used.
const [, recipient] = await (
  await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, {
    prefix,
    hdPaths: [makeCosmoshubPath(0), makeCosmoshubPath(1)],
  })
).getAccounts();
const sent = await client.sendTokens(
  address,
  recipient.address,
  [{ denom: "stake", amount: "1000" }],
  "auto",
);
console.log(`direct: sent 1000stake to ${recipient.address} in block ${sent.height} (gas ${sent.gasUsed})`);

// SIGN_MODE_LEGACY_AMINO_JSON: what Ledger devices and amino wallets sign; the node accepts it as Cosmos does.
const amino = await Secp256k1HdWallet.fromMnemonic(mnemonic, { prefix });
const aminoClient = await SigningStargateClient.connectWithSigner(rpc, amino, { gasPrice });
const aminoSent = await aminoClient.sendTokens(
  address,
  recipient.address,
  [{ denom: "stake", amount: "1" }],
  "auto",
);
console.log(`amino-json: sent 1stake in block ${aminoSent.height}`);
console.log(`${recipient.address} holds ${JSON.stringify(await client.getAllBalances(recipient.address))}`);

// Gov v1beta1, the queries CosmJS's gov extension and explorers ask.
const comet = await Comet38Client.connect(rpc);
const gov = QueryClient.withExtensions(comet, setupGovExtension).gov;
const { proposals } = await gov.proposals(0, "", "");
console.log(`gov v1beta1: ${proposals.length} proposal(s)`);
const { votingParams } = await gov.params("voting");
console.log(`gov v1beta1: voting period ${votingParams.votingPeriod.seconds}s`);

comet.disconnect();
client.disconnect();
aminoClient.disconnect();
