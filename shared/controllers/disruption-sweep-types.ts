// The disruption sweep's contract: the decision engine it runs, what callers may set, and what it reports.

import type {
  DisruptionCommand,
  DisruptionHistory,
  DisruptionInput,
  DisruptionOptions,
  DisruptionPlan,
  ValidationResult,
} from '../disruption';
import { planDisruption, validate } from '../disruption';
import type { CapacityBlockResult } from './capacity-blocks';
import type { PodActivity } from './disruption-input';
import type { RepairResult } from './repair';

/** The pure decision functions; injectable so scripted tests can drive the orchestration. */

export interface SweepEngine {
  plan(input: DisruptionInput): DisruptionPlan;
  validate(command: DisruptionCommand, fresh: DisruptionInput): ValidationResult;
  /** Overrides the cluster's consolidationValidationDelay setting (scripted engines in tests). */
  validationDelayMs?: number;
}

export const defaultSweepEngine: SweepEngine = {
  plan: planDisruption,
  validate,
};

/** A node whose disruption started (tainted, replacements launching or draining). */
export interface DisruptingNode {
  node: string;
  nodeClaim: string;
  nodePool: string;
  reason: string;
  forceful: boolean;
  /** The claim's terminationGracePeriod, when it has one: its drain ends there, whatever still blocks it. */
  terminationGracePeriod?: string;
}

export interface DisruptionSweepOptions {
  engine?: SweepEngine;
  options?: DisruptionOptions;
  /** Pod activity from a watch stream (the simulator); otherwise derived from pod creation times. */
  activity?: PodActivity;
  /** Per-NodePool history to plan with; derived from the claims' disruption records when absent. */
  history?: DisruptionHistory;
  /** Skip the planning step (only move in-flight commands along). */
  progressOnly?: boolean;
  /** When (on deps.clock) planning must stop so the invocation can still record and act on what it decided; the
   * provisioner derives it from the Lambda's remaining time (docs/disruption.md, A deadline for the sweep). A sweep
   * cut short keeps its commands and leaves a cursor in the store where the next sweep resumes. */
  deadline?: number;
  /** Keep decision records: claim → gist of its last Keep record, so an unchanged reason is not rewritten. */
  keepMemo?: Map<string, string>;
  /** How long a command waits for its replacements to initialize. Default: the replacementTimeout setting. */
  replacementTimeoutMs?: number;
  /** Told when a command starts disrupting its nodes (before any is drained). */
  onStart?: (nodes: DisruptingNode[]) => void;
  /** Told the name of each replacement claim launched, with the command's reason. */
  onReplacement?: (claim: string, reason: string) => void;
  /** Told when a command is dropped at validation or abandoned. */
  onDropped?: (command: DisruptionCommand, why: string) => void;
}

export interface DisruptionSweepResult {
  /** The sweep's plan; undefined when planning was skipped. */
  plan?: DisruptionPlan;
  /** The view the plan was made from. */
  input?: DisruptionInput;
  /** Command ids decided this sweep. */
  decided: string[];
  /** Command ids that tainted their candidates this sweep. */
  started: string[];
  /** Command ids whose candidates began terminating this sweep. */
  terminating: string[];
  /** Command ids dropped at validation or abandoned this sweep. */
  dropped: string[];
  /** Commands still in flight after the sweep (Validating or Launching). */
  inflight: number;
  /** The earliest validateAfter among in-flight commands, ms. */
  nextValidationAt?: number;
  /** Node repair's part of a planning sweep (shared/controllers/repair.ts); undefined when planning was skipped. */
  repair?: RepairResult;
  /** Consolidation candidates the planning deadline kept from being judged (0 when it finished; undefined when
   * planning was skipped). */
  candidatesDeferred?: number;
  /** Capacity-block nodes this sweep began draining ahead of the block's end (capacity-blocks.ts). */
  capacityBlocks?: CapacityBlockResult;
}
