// Burstable families (t). Rows of the family table (../families.ts), in the
// snapshot's order.
import { amd, type FamilySpec, graviton, intel, T } from './spec';

export const BURSTABLE: FamilySpec[] = [
  intel({
    family: 't3',
    clock: 2500,
    sizes: T,
    od: '.0052 .0104 .0208 .0416 .0832 .1664 .3328',
    mem: '.5 1 2 4 8 16 32',
    eni: 't3',
    bw: 'burstable',
    ebs: 'burstable',
    encryptionInTransit: false,
  }),
  amd({
    family: 't3a',
    clock: 2200,
    sizes: T,
    od: '.0047 .0094 .0188 .0376 .0752 .1504 .3008',
    mem: '.5 1 2 4 8 16 32',
    eni: 't3',
    eniOverride: { small: '8/5/0' },
    bw: 'burstable',
    ebs: 'burstable',
    encryptionInTransit: false,
  }),
  graviton({
    family: 't4g',
    clock: 2500,
    sizes: T,
    od: '.0042 .0084 .0168 .0336 .0672 .1344 .2688',
    mem: '.5 1 2 4 8 16 32',
    eni: 't3',
    bw: 'burstable',
    ebs: 'burstable',
    encryptionInTransit: false,
  }),
];
