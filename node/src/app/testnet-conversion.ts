/**
 * What `in-place-testnet` asks of each module when it turns a copy of a chain's state into a one-validator
 * testnet (the SDK's InitSimAppForTestnet). The App runs every module's `convertToTestnet` on the state the next
 * block starts from, so the changes are committed in that block and its app hash covers them.
 */
export interface TestnetConversion {
  /** The operator's account address (bytes): it gets funds and operates the only bonded validator. */
  operator: Uint8Array;
  /** The ed25519 consensus key of this node's priv_validator_key.json: the only key that signs blocks. */
  validatorPubKey: Uint8Array;
  /** An upgrade plan to schedule at the next height (`--trigger-testnet-upgrade`); undefined for none. */
  upgradeToTrigger?: string;
}

/** Governance's voting periods on the testnet: a proposal passes within a minute instead of days. */
export const TESTNET_VOTING_PERIOD_MS = 20_000;
/** Staking's unbonding time on the testnet. */
export const TESTNET_UNBONDING_MS = 60_000;
/** Bond-denom tokens minted to the operator; most of them become the validator's self-delegation. */
export const TESTNET_OPERATOR_FUNDS = 1_000_000_000_000_000n;
/** The operator's self-delegation: the whole testnet's voting power (the SDK's figure). */
export const TESTNET_SELF_DELEGATION = 900_000_000_000_000n;
