// The public SSM parameters an AWS-compatible endpoint may lack. An EC2NodeClass `alias: al2023@latest` reads
// /aws/service/eks/optimized-ami/<version>/amazon-linux-2023/<arch>/standard/recommended/image_id
// (shared/aws/ec2/amis.ts); moto_server serves none of the EKS-optimized parameters and refuses to create reserved
// /aws/ names, but it does serve Amazon Linux's own /aws/service/ami-amazon-linux-latest/ tree. So that
// `karpless dev -f examples/cluster --aws-endpoint URL` works unchanged there (docs/aws.md), the dev harness, and
// only it, answers a missing EKS AL2023 standard parameter with the endpoint's Amazon Linux 2023 image of the same
// architecture and says so once. Real AWS always has the EKS parameter, so there the fallback never fires; the
// product's resolution is untouched.
import { GetParameterCommand, type GetParameterCommandOutput, type SSMClient } from '@aws-sdk/client-ssm';

const EKS_AL2023_LATEST =
  /^\/aws\/service\/eks\/optimized-ami\/[^/]+\/amazon-linux-2023\/(x86_64|arm64)\/standard\/recommended\/image_id$/;

/** The Amazon Linux parameter that stands in for `name`, or undefined when none does. */
export function amazonLinuxStandIn(name: string): string | undefined {
  const arch = EKS_AL2023_LATEST.exec(name)?.[1];
  return arch ? `/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-${arch}` : undefined;
}

interface InitializeStack {
  add(
    m: (
      next: (args: { input: { Name?: string } }) => Promise<{ output: GetParameterCommandOutput }>,
      context: { commandName?: string },
    ) => (args: { input: { Name?: string } }) => Promise<{ output: GetParameterCommandOutput }>,
    o: { step: 'initialize'; name: string },
  ): void;
}

/** Makes `ssm` answer a missing EKS AL2023 alias parameter with the endpoint's Amazon Linux 2023 image. */
export function withAmazonLinuxStandIn(ssm: SSMClient, notice: (line: string) => void): SSMClient {
  const told = new Set<string>();
  (ssm.middlewareStack as unknown as InitializeStack).add(
    (next, context) => async (args) => {
      const name = args.input.Name ?? '';
      const standIn = context.commandName === GetParameterCommand.name ? amazonLinuxStandIn(name) : undefined;
      if (!standIn) return next(args);
      try {
        return await next(args);
      } catch (err) {
        if ((err as { name?: string }).name !== 'ParameterNotFound') throw err;
        const answer = await next({ ...args, input: { ...args.input, Name: standIn } });
        if (!told.has(name)) {
          told.add(name);
          notice(`the endpoint has no ${name}; using its ${standIn} (${answer.output.Parameter?.Value}) instead`);
        }
        return answer;
      }
    },
    { step: 'initialize', name: 'amazonLinuxStandIn' },
  );
  return ssm;
}
