import { create, createRegistry } from "@bufbuild/protobuf";
import { QueryCurrentPlanResponseSchema } from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { PlanSchema } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";
import { describe, expect, it } from "vitest";
import { gatewayJson } from "../../../node/src/server/rest/gateway-json.js";

// Spec 2.1: a plan prints `time` as Go's zero time (gogoproto stdtime, non-nullable) and
// `upgraded_client_state` as null, in the field order of the proto, on REST and in the CLI alike.
describe("the plan as Cosmos' JSON prints it", () => {
  const registry = createRegistry();
  const plan = create(PlanSchema, { name: "v2", height: 130n, info: '{"binaries":{}}' });

  it("prints time as 0001-01-01T00:00:00Z and upgraded_client_state as null, in field order", () => {
    expect(JSON.stringify(gatewayJson(PlanSchema, plan, registry))).toBe(
      '{"name":"v2","time":"0001-01-01T00:00:00Z","height":"130","info":"{\\"binaries\\":{}}","upgraded_client_state":null}',
    );
  });

  it("does so inside CurrentPlan's answer and inside MsgSoftwareUpgrade, and keeps plan null when there is none", () => {
    const current = gatewayJson(
      QueryCurrentPlanResponseSchema,
      create(QueryCurrentPlanResponseSchema, { plan }),
      registry,
    );
    expect(current).toEqual({
      plan: {
        name: "v2",
        time: "0001-01-01T00:00:00Z",
        height: "130",
        info: '{"binaries":{}}',
        upgraded_client_state: null,
      },
    });
    const none = gatewayJson(
      QueryCurrentPlanResponseSchema,
      create(QueryCurrentPlanResponseSchema),
      registry,
    );
    expect(none).toEqual({ plan: null });
    const msg = gatewayJson(
      MsgSoftwareUpgradeSchema,
      create(MsgSoftwareUpgradeSchema, { authority: "a", plan }),
      registry,
    );
    expect(JSON.stringify(msg)).toBe(
      '{"authority":"a","plan":{"name":"v2","time":"0001-01-01T00:00:00Z","height":"130","info":"{\\"binaries\\":{}}","upgraded_client_state":null}}',
    );
  });
});
