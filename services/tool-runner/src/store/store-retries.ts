import { fileStoreElectionWaitMs, type NatsRetryPolicy } from "@agent-orchestrator/shared/runtime";

/**
 * A read, a content-addressed put (the name is the content's sha256) or a revision record: a repeat of one
 * that timed out but landed stores the same thing again, so it is tried again through an election.
 */
export const repeatable: NatsRetryPolicy = { retryOn: ["no-responders", "no-leader", "timeout"], budgetMs: fileStoreElectionWaitMs };

/**
 * A compare-and-set (a space's index, a code snapshot's pointer): tried again only when nobody took it. One that
 * timed out may have landed, and a repeat would then lose to itself and make the change twice; it fails instead.
 */
export const notTaken: NatsRetryPolicy = { retryOn: ["no-responders", "no-leader"], budgetMs: fileStoreElectionWaitMs };
