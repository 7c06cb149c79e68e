import { create } from "@bufbuild/protobuf";
import {
  type Query,
  QueryAppliedPlanResponseSchema,
  QueryAuthorityResponseSchema,
  QueryCurrentPlanResponseSchema,
  QueryModuleVersionsResponseSchema,
  QueryUpgradedConsensusStateResponseSchema,
} from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { ModuleVersionSchema } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { UpgradeErrors, upgradeError } from "./upgrade-errors.js";
import type { UpgradeKeeper } from "./upgrade-keeper.js";

export function upgradeQueryServer(keeper: UpgradeKeeper, authority: string): ServiceImpl<typeof Query> {
  return {
    async currentPlan(ctx) {
      return create(QueryCurrentPlanResponseSchema, { plan: await keeper.getPlan(ctx) });
    },
    async appliedPlan(ctx, req) {
      return create(QueryAppliedPlanResponseSchema, { height: await keeper.doneHeight(ctx, req.name) });
    },
    async upgradedConsensusState() {
      return create(QueryUpgradedConsensusStateResponseSchema);
    },
    async moduleVersions(ctx, req) {
      const vm = await keeper.getVersionMap(ctx);
      if (req.moduleName) {
        const v = vm.get(req.moduleName);
        if (v === undefined)
          throw upgradeError(UpgradeErrors.NoModuleVersionFound, `module ${req.moduleName} not found`);
        return create(QueryModuleVersionsResponseSchema, {
          moduleVersions: [create(ModuleVersionSchema, { name: req.moduleName, version: v })],
        });
      }
      const moduleVersions = [...vm.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, version]) => create(ModuleVersionSchema, { name, version }));
      return create(QueryModuleVersionsResponseSchema, { moduleVersions });
    },
    async authority() {
      return create(QueryAuthorityResponseSchema, { address: authority });
    },
  };
}
