// The Windows Server AMI families: the Windows version each boots and the build its nodes report in
// node.kubernetes.io/windows-build, as Karpenter's AWS provider knows them (docs/api.md, Windows).
export const WINDOWS_FAMILIES = {
  Windows2019: { version: '2019', build: '10.0.17763' },
  Windows2022: { version: '2022', build: '10.0.20348' },
  /** EKS publishes Windows Server 2025 images from Kubernetes 1.35 on. */
  Windows2025: { version: '2025', build: '10.0.26100', minKubernetesMinor: 35 },
} as const;

export type WindowsFamily = keyof typeof WINDOWS_FAMILIES;

export function isWindowsFamily(family: string | undefined): family is WindowsFamily {
  return family !== undefined && Object.hasOwn(WINDOWS_FAMILIES, family);
}

/** The operating system a node of this AMI family runs (the kubernetes.io/os label). */
export function osOfFamily(family: string | undefined): 'linux' | 'windows' {
  return isWindowsFamily(family) ? 'windows' : 'linux';
}
