/** Why a Plan.info or one of its URLs was refused: its shape (`PLAN_INFO`) or its checksum (`CHECKSUM`). */
export class PlanInfoError extends Error {
  constructor(
    readonly code: "PLAN_INFO" | "CHECKSUM",
    message: string,
  ) {
    super(message);
    this.name = "PlanInfoError";
  }
}
