// EBS volume attachment limits per instance type, as DescribeInstanceTypes reports them in `EbsInfo`
// (`MaximumEbsAttachments`, `AttachmentLimitType`). Transcribed from the aws-ebs-csi-driver's table generated from
// that API across every region (pkg/cloud/limits/volume_limits_table.go, August 2026), for the families of the
// embedded snapshot. Each entry is `size:<count><s|d>` (shared or dedicated limit). A size not listed has the
// common Nitro figure, 27 shared (the driver's default); Xen types are handled by the rule in ../ebs-limits.ts.
// docs/catalog.md, What is real and what is derived.

export const DEFAULT_EBS_ATTACHMENTS = { count: 27, type: 'shared' } as const;

export const EBS_ATTACHMENTS: Readonly<Record<string, string>> = {
  c5: 'metal:31s',
  c5d: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 9xlarge:26s 12xlarge:25s 18xlarge:25s 24xlarge:23s metal:31s',
  c5n: 'metal:31s',
  c6a: 'metal:31s',
  c6g: 'metal:31s',
  c6gd: 'medium:26s large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s metal:31s',
  c6i: 'metal:31s',
  c6id: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s 24xlarge:23s 32xlarge:23s metal:31s',
  c6in: 'metal:31s',
  c7a: 'medium:32d large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d 32xlarge:88d 48xlarge:128d metal-48xl:79d',
  c7g: 'metal:31s',
  c7gd: 'medium:26s large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s metal:31s',
  c7gn: 'metal:31s',
  c7i: 'large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d metal-24xl:39d 48xlarge:128d metal-48xl:79d',
  'c7i-flex': 'large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d',
  c8g: 'medium:32d large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d metal-24xl:39d 48xlarge:128d metal-48xl:79d',
  d3: 'xlarge:24s 2xlarge:21s 4xlarge:15s 8xlarge:3s',
  d3en: 'xlarge:25s 2xlarge:23s 4xlarge:19s 6xlarge:15s 8xlarge:11s 12xlarge:3s',
  g4ad: 'xlarge:25s 2xlarge:25s 4xlarge:25s 8xlarge:24s 16xlarge:21s',
  g4dn: 'xlarge:25s 2xlarge:25s 4xlarge:25s 8xlarge:25s 12xlarge:22s 16xlarge:25s metal:31s',
  g5: 'xlarge:25s 2xlarge:25s 4xlarge:25s 8xlarge:25s 12xlarge:22s 16xlarge:25s 24xlarge:22s 48xlarge:9s',
  g5g: 'xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 16xlarge:25s metal:31s',
  g6: 'xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d 48xlarge:128d',
  g6e: 'xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d 48xlarge:128d',
  i3en: 'large:26s xlarge:26s 2xlarge:25s 3xlarge:26s 6xlarge:25s 12xlarge:23s 24xlarge:19s metal:31s',
  i4i: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:25s 12xlarge:24s 16xlarge:23s 24xlarge:21s 32xlarge:19s metal:31s',
  im4gn: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:25s 16xlarge:23s',
  inf1: 'xlarge:26s 2xlarge:26s 6xlarge:23s 24xlarge:11s',
  inf2: 'xlarge:26s 8xlarge:26s 24xlarge:28s 48xlarge:28s',
  is4gen: 'medium:26s large:26s xlarge:26s 2xlarge:26s 4xlarge:25s 8xlarge:23s',
  m5: 'metal:31s',
  m5ad: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:25s 8xlarge:25s 12xlarge:25s 16xlarge:23s 24xlarge:23s',
  m5d: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:25s 8xlarge:25s 12xlarge:25s 16xlarge:23s 24xlarge:23s metal:31s',
  m5dn: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:25s 8xlarge:25s 12xlarge:25s 16xlarge:23s 24xlarge:23s metal:31s',
  m5n: 'metal:31s',
  m5zn: 'metal:31s',
  m6a: 'metal:31s',
  m6g: 'metal:31s',
  m6gd: 'medium:26s large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s metal:31s',
  m6i: 'metal:31s',
  m6id: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s 24xlarge:23s 32xlarge:23s metal:31s',
  m6idn:
    'large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s 24xlarge:23s 32xlarge:23s metal:31s',
  m6in: 'metal:31s',
  m7a: 'medium:32d large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d 32xlarge:88d 48xlarge:128d metal-48xl:79d',
  m7g: 'metal:31s',
  m7gd: 'medium:26s large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s metal:31s',
  m7i: 'large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d metal-24xl:39d 48xlarge:128d metal-48xl:79d',
  'm7i-flex': 'large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d',
  m8g: 'medium:32d large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d metal-24xl:39d 48xlarge:128d metal-48xl:79d',
  p4d: '24xlarge:28d',
  p5: '48xlarge:64d',
  r5: 'metal:31s',
  r5ad: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:25s 8xlarge:25s 12xlarge:25s 16xlarge:23s 24xlarge:23s',
  r5b: 'metal:31s',
  r5d: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:25s 8xlarge:25s 12xlarge:25s 16xlarge:23s 24xlarge:23s metal:31s',
  r5dn: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:25s 8xlarge:25s 12xlarge:25s 16xlarge:23s 24xlarge:23s metal:31s',
  r5n: 'metal:31s',
  r6a: 'metal:31s',
  r6g: 'metal:31s',
  r6gd: 'medium:26s large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s metal:31s',
  r6i: 'metal:31s',
  r6id: 'large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s 24xlarge:23s 32xlarge:23s metal:31s',
  r6idn:
    'large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s 24xlarge:23s 32xlarge:23s metal:31s',
  r6in: 'metal:31s',
  r7a: 'medium:32d large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d 32xlarge:88d 48xlarge:128d metal-48xl:79d',
  r7g: 'metal:31s',
  r7gd: 'medium:26s large:26s xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 12xlarge:25s 16xlarge:25s metal:31s',
  r7i: 'large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d metal-24xl:39d 48xlarge:128d metal-48xl:79d',
  r7iz: 'large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d metal-16xl:39d 32xlarge:88d metal-32xl:79d',
  r8g: 'medium:32d large:32d xlarge:32d 2xlarge:32d 4xlarge:32d 8xlarge:32d 12xlarge:32d 16xlarge:48d 24xlarge:64d metal-24xl:39d 48xlarge:128d metal-48xl:79d',
  trn1: '2xlarge:25s',
  x2idn: '16xlarge:26s 24xlarge:25s 32xlarge:25s metal:31s',
  x2iedn: 'xlarge:26s 2xlarge:26s 4xlarge:26s 8xlarge:26s 16xlarge:26s 24xlarge:25s 32xlarge:25s metal:31s',
  z1d: 'large:26s xlarge:26s 2xlarge:26s 3xlarge:26s 6xlarge:26s 12xlarge:25s metal:31s',
};

/** The family row's limit for a size, or the default. */
export function ebsAttachmentsOf(family: string, size: string): { count: number; type: 'shared' | 'dedicated' } {
  for (const entry of (EBS_ATTACHMENTS[family] ?? '').split(' ')) {
    const m = /^(.+):(\d+)([sd])$/.exec(entry);
    if (m && m[1] === size) return { count: Number(m[2]), type: m[3] === 'd' ? 'dedicated' : 'shared' };
  }
  return DEFAULT_EBS_ATTACHMENTS;
}
