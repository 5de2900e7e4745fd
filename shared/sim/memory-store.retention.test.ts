import { describeClaimRetentionContract } from '../../test/contracts/claim-retention.contract';
import { MemoryNodeClaimStore } from './memory-store';

describeClaimRetentionContract('in memory', { makeStore: (clock) => new MemoryNodeClaimStore({ clock }) });
