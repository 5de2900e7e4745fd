import { MemoryNodeClaimStore } from '../../shared/sim/memory-store';
import { describeClaimRetentionContract } from './claim-retention.contract';

describeClaimRetentionContract('in memory', { makeStore: (clock) => new MemoryNodeClaimStore({ clock }) });
