// The command-line surface: every subcommand's options and help. Each action imports its implementation from
// cli/commands/ only when it runs, so `karpless --help` loads Commander and this file, not the engine or the AWS SDK
// (docs/performance.md, "CLI startup").
import type { Command } from 'commander';
import { FORWARDER_NAME, FORWARDER_NAMESPACE } from '../../forwarder/names';
import { CONTROLLER_GROUP } from '../../shared/api/controller-group';
import type { CatalogListOptions, CatalogRefreshOptions } from '../commands/catalog';
import type { DevOptions } from '../commands/dev';
import type { ExplainOptions } from '../commands/explain';
import type { ForwarderManifestFlags, ForwarderRbacFlags } from '../commands/forwarder';
import type { CommandContext, RegisterCommand } from '../commands/index';
import type { InvokeOptions } from '../commands/invoke';
import type { MigrateOptions } from '../commands/migrate';
import type { NodeClaimsOptions } from '../commands/nodeclaims';
import type { SimulateOptions } from '../commands/simulate';
import type { StatusOptions } from '../commands/status';
import { EXIT_USAGE } from '../io';
import { addKubeconfigOptions } from './kubeconfig-options';
import {
  addCatalogOption,
  addLimitOptions,
  addRecordSourceOptions,
  collect,
  commaList,
  missingOptions,
  REQUIRED,
} from './options';

/** Reports every missing required option at once (exit 2); true when the command may run. */
function requireAll(ctx: CommandContext, opts: object, required: Record<string, string>): boolean {
  const problem = missingOptions(opts, required);
  if (problem === undefined) return true;
  ctx.io.err(problem);
  ctx.result.code = EXIT_USAGE;
  return false;
}

export const registerSimulate: RegisterCommand = (program: Command, ctx: CommandContext) => {
  const cmd = program
    .command('simulate')
    .description(
      'Plan NodeClaims for manifests (files or folders of YAML) and show what would launch and its cost, or run a ' +
        'time-stepped scenario (--scenario FILE)',
    )
    .option('-f, --file <path>', 'a YAML file or a folder of them, or - for standard input (repeatable)', collect)
    .option('--scenario <file>', 'a Scenario (karpless.dev/v1alpha1) to run on a virtual clock')
    .option('-o, --output <format>', 'table or json; html too with --scenario', 'table')
    .option('--seed <n>', 'seed for the simulated cloud (instance ids)', '1')
    .option('--fail-on-pending', 'exit 1 when any pod stays unschedulable, with the reasons on stderr')
    .option('--decisions-out <file>', 'with --scenario: write every decision record as JSON (for karpless explain)')
    .option(
      '--progress',
      'with --scenario: progress lines (simulated and wall time) on stderr even when it is not a terminal',
    )
    .option(
      '--time-budget <duration>',
      'stop planning after this long (500ms, 2s, ...), as the provisioner does near its deadline; the rest are listed as deferred',
    )
    .option('--min-values-policy <policy>', "Karpenter's MinValuesPolicy: Strict (default) or BestEffort")
    .option('--preference-policy <policy>', "Karpenter's PreferencePolicy: Respect (default) or Ignore");
  addCatalogOption(cmd);
  addLimitOptions(cmd);
  addKubeconfigOptions(cmd);
  cmd.action(async (opts: SimulateOptions) => (await import('../commands/simulate')).runSimulate(ctx, opts));
};

export const registerCatalog: RegisterCommand = (program: Command, ctx: CommandContext) => {
  const cmd = program
    .command('catalog')
    .description('List instance types with capacity, allocatable and prices (refresh: rebuild from AWS)')
    .option('-o, --output <format>', 'table or json', 'table')
    .option('--family <names>', 'only these families, comma-separated (repeatable)', commaList)
    .option('--category <letters>', 'only these categories, e.g. c,m,r (repeatable)', commaList)
    .option('--arch <arch>', 'only amd64 or arm64')
    .option('--accelerated', 'only types with GPUs or Inferentia/Trainium devices')
    .option('--node-class <file>', 'compute allocatable for the EC2NodeClass in this YAML file');
  addCatalogOption(cmd);
  cmd.action(async (opts: CatalogListOptions) => (await import('../commands/catalog')).runCatalogList(ctx, opts));
  const refresh = cmd
    .command('refresh')
    .description("Rebuild a catalog for a region from your AWS account's EC2 and Pricing APIs")
    .option('--region <region>', `AWS region, e.g. us-west-2${REQUIRED}`)
    .option('--out <file>', 'where to write the catalog (default: catalog-<region>.json)');
  // Branch ENIs and bandwidth are not in DescribeInstanceTypes; they are copied from --catalog where it knows a type.
  addCatalogOption(refresh);
  // Commander lets the parent's --catalog claim the flag after `refresh` too; merge so either position works.
  refresh.action(async () => {
    const opts = refresh.optsWithGlobals<CatalogRefreshOptions>();
    if (!requireAll(ctx, opts, { region: '--region <region>' })) return;
    await (await import('../commands/catalog')).runCatalogRefresh(ctx, opts);
  });
};

export const registerMigrate: RegisterCommand = (program: Command, ctx: CommandContext) => {
  const cmd = program
    .command('migrate')
    .description(
      'convert Karpenter v1alpha5 (Provisioner, AWSNodeTemplate) and v1beta1 manifests to v1 NodePool and EC2NodeClass',
    )
    .argument('[paths...]', 'YAML files, or folders of them, or - for standard input')
    .option('-f, --file <path>', 'a YAML file or a folder of them, or - for standard input (repeatable)', collect)
    .option(
      '--check',
      'read a `kubectl get ... -o yaml` dump instead and list what blocks the cut-over from Karpenter (exit 1 if anything does)',
    )
    .option('--nodepool <name>', 'with --check: only the NodePools being moved now (repeatable; default: all)', collect)
    .option('-o, --output <format>', 'with --check: text (default) or json');
  addKubeconfigOptions(cmd).action(async (paths: string[], opts: MigrateOptions) => {
    const all = [...paths, ...(opts.file ?? [])];
    if (all.length === 0 && opts.kubeconfig === undefined) {
      ctx.io.err("error: missing required argument 'paths' (or -f, --file <path>, or --check --kubeconfig <path>)");
      ctx.result.code = EXIT_USAGE;
      return;
    }
    await (await import('../commands/migrate')).runMigrate(ctx, all, opts);
  });
};

export const registerCrds: RegisterCommand = (program: Command, ctx: CommandContext) => {
  program
    .command('crds')
    .description('print the NodePool and EC2NodeClass CustomResourceDefinitions as YAML')
    .action(async () => (await import('../commands/crds')).runCrds(ctx));
};

export const registerForwarder: RegisterCommand = (program: Command, ctx: CommandContext) => {
  const forwarder = program.command('forwarder').description('install manifests for the in-cluster forwarder and RBAC');
  forwarder
    .command('manifest')
    .description('print the forwarder manifests: namespace, service account, read-only RBAC, deployment, PDB')
    .option('--cluster <name>', `EKS cluster name (the FIFO message group)${REQUIRED}`)
    .option('--queue-url <url>', `the cluster's SQS FIFO queue URL${REQUIRED}`)
    .option('--role-arn <arn>', 'IAM role for IRSA; omit with EKS Pod Identity (the stack creates the association)')
    .option(
      '--image <image>',
      'a private forwarder image (forwarder/Dockerfile); by default the bundled forwarder runs from a ConfigMap on the official Node.js image',
    )
    .option('--namespace <name>', 'namespace (as in the stack config forwarder.namespace)', FORWARDER_NAMESPACE)
    .option('--service-account <name>', 'service account (as in forwarder.serviceAccount)', FORWARDER_NAME)
    .action(async (flags: ForwarderManifestFlags) => {
      if (!requireAll(ctx, flags, { cluster: '--cluster <name>', queueUrl: '--queue-url <url>' })) return;
      await (await import('../commands/forwarder')).runForwarderManifest(ctx, flags);
    });
  forwarder
    .command('rbac')
    .description(
      "print the ClusterRole and binding the Lambda functions' EKS access entry maps to, and the admission policy " +
        'that limits their node writes to the nodes Karpless manages',
    )
    .option('--group <name>', 'Kubernetes group named in the access entry', CONTROLLER_GROUP)
    .option('--bind-pods', 'grant create on pods/binding, for clusters with bindPods: true')
    .option('--no-admission-policy', 'leave out the ValidatingAdmissionPolicy (clusters before Kubernetes 1.30)')
    .action(async (flags: ForwarderRbacFlags) => (await import('../commands/forwarder')).runForwarderRbac(ctx, flags));
};

export const registerExplain: RegisterCommand = (program: Command, ctx: CommandContext) => {
  const cmd = program
    .command('explain')
    .description('print why a node or NodeClaim was launched, kept or removed (its decision records)')
    .argument(
      '<name>',
      'a node name, a NodeClaim name, (with -f) a pod, or (with --table) an instance id or providerID',
    )
    .option('--store <file>', 'decision records as JSON (e.g. from simulate --scenario FILE --decisions-out FILE)')
    .option(
      '-f, --file <path>',
      'plan these manifests as simulate -f does and explain a planned NodeClaim or a pending pod (repeatable)',
      collect,
    );
  addCatalogOption(addRecordSourceOptions(cmd, 'run this Scenario on the simulator and read its records')).action(
    async (name: string, opts: ExplainOptions) => (await import('../commands/explain')).runExplain(ctx, name, opts),
  );
};

export const registerNodeClaims: RegisterCommand = (program: Command, ctx: CommandContext) => {
  const cmd = program
    .command('nodeclaims')
    .description("list a deployed cluster's NodeClaims from its table, as kubectl get nodeclaims does under Karpenter")
    .option('--all', 'also the failed ones, and those terminated in the last 2 days')
    .option('--nodepool <name>', 'only this NodePool’s');
  addRecordSourceOptions(cmd, 'run this Scenario on the simulator and list the NodeClaim objects it mirrored').action(
    async (opts: NodeClaimsOptions) => (await import('../commands/nodeclaims')).runNodeClaims(ctx, opts),
  );
};

export const registerDev: RegisterCommand = (program: Command, ctx: CommandContext) => {
  program
    .command('dev')
    .description(
      'Run the local pipeline on manifests: real handlers, simulated cluster and cloud, dynalite, in-memory SQS',
    )
    .option('-f, --file <path>', `a YAML file or a folder of them (repeatable)${REQUIRED}`, collect)
    .option('--seed <n>', 'seed for the simulated cluster and cloud', '1')
    .option('--until <duration>', 'run this long in virtual time (default: until every pod is bound, at most 30m)')
    .option('--cluster <name>', 'the cluster name (message group, tags)', 'demo')
    .option('-v, --verbose', "print the handlers' INFO log lines too")
    .option(
      '--aws-endpoint <url>',
      'run against this AWS-compatible endpoint (EC2, SSM, IAM, SQS, DynamoDB) instead of the simulated cloud',
    )
    .action(async (opts: DevOptions) => {
      if (!requireAll(ctx, opts, { file: '-f, --file <path>' })) return;
      await (await import('../commands/dev')).runDev(ctx, opts);
    });
};

export const registerInvoke: RegisterCommand = (program: Command, ctx: CommandContext) => {
  program
    .command('invoke')
    .description('Run one handler locally against the simulator with an event file (such as events/pods-pending.json)')
    .argument('<function>', 'provisioner | interruption | termination | gc')
    .argument('<event>', 'an event file; names in events/ may be given bare')
    .option('-f, --file <path>', 'manifests to seed the simulator with (default: examples/cluster)', collect)
    .option('--seed <n>', 'seed for the simulated cluster and cloud', '1')
    .option('--settle', 'first run the pipeline until the seeded pods are bound, so instances exist')
    .action(async (fn: string, event: string, opts: InvokeOptions) =>
      (await import('../commands/invoke')).runInvoke(ctx, fn, event, opts),
    );
};

export const registerStatus: RegisterCommand = (program: Command, ctx: CommandContext) => {
  program
    .command('status')
    .description(
      'the fleet at a glance: per cluster of the clusters file, nodes by NodePool and capacity type, pending pods, ' +
        '$/hour, the last decision, queue and DLQ depth, alarms in ALARM (a detail view with CLUSTER)',
    )
    .argument('[cluster]', 'one cluster of the file, shown in detail')
    .option('--clusters <file>', 'the clusters file the stacks were deployed from', 'clusters.yaml')
    .option('-o, --output <format>', 'table or json', 'table')
    .option('--region <region>', "every cluster's region (default: each cluster's region in the file)")
    .option('--endpoint-url <url>', 'one endpoint for every AWS service read, such as moto_server')
    .action(async (cluster: string | undefined, opts: StatusOptions) =>
      (await import('../commands/status')).runStatus(ctx, cluster, opts),
    );
};

/** In the order `karpless --help` lists them. */
export const commands: RegisterCommand[] = [
  registerSimulate,
  registerCatalog,
  registerMigrate,
  registerCrds,
  registerForwarder,
  registerExplain,
  registerNodeClaims,
  registerStatus,
  registerDev,
  registerInvoke,
];
