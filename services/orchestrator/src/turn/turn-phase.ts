import { inSpan } from "@agent-orchestrator/shared/runtime";

/** The phases of a turn (turn-runner.ts, child-turn.ts), and before them the user's turn slot (turn-entry.ts). */
export type TurnPhase = "entry" | "admission" | "hold" | "preparation" | "execution" | "finish";

/**
 * Runs one phase of a turn in a span of its own (`turn admission`, …), so a turn's trace shows where its time
 * goes before the first token and the NATS round trips each phase makes (bench measure 2); with tracing off it
 * only runs the phase.
 */
export const inPhase = <T>(phase: TurnPhase, work: () => Promise<T>): Promise<T> => inSpan(`turn ${phase}`, {}, work);
