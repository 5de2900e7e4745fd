// Windows Server prices for the embedded snapshot. Derived, not transcribed: AWS bills the License Included Windows
// Server licence per vCPU-hour on top of the instance's Linux price, on demand and on spot alike ($0.046, the EC2
// User Guide's "Optimize CPUs for License-Included instances", usage operation RunInstances:0002). EKS runs Windows
// nodes on x86 only, so Graviton types get none. docs/catalog.md, Windows prices.
import type { InstanceTypeInfo, WindowsPrices } from '../types';

export const WINDOWS_LICENSE_PER_VCPU_HOUR = 0.046;

const round = (price: number, digits: number) => Math.round(price * 10 ** digits) / 10 ** digits;

export function windowsPrices(info: Pick<InstanceTypeInfo, 'arch' | 'vcpu' | 'onDemandPrice' | 'spotPrice'>) {
  if (info.arch !== 'amd64') return undefined;
  const licence = WINDOWS_LICENSE_PER_VCPU_HOUR * info.vcpu;
  const spotPrice: Record<string, number> = {};
  for (const [zone, price] of Object.entries(info.spotPrice)) spotPrice[zone] = round(price + licence, 4);
  const prices: WindowsPrices = { onDemandPrice: round(info.onDemandPrice + licence, 6), spotPrice };
  return prices;
}
