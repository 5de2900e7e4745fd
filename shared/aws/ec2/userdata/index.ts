// UserData by AMI family. Custom AMIs get the user's userData untouched: Karpless cannot know how they bootstrap.
import type { AmiFamily } from '../amis';
import { al2UserData } from './al2';
import { al2023UserData } from './al2023';
import { bottlerocketUserData } from './bottlerocket';
import type { BootstrapInput } from './input';
import { windowsUserData } from './windows';

export type { BootstrapInput } from './input';

export function userDataFor(family: AmiFamily, input: BootstrapInput): string {
  switch (family) {
    case 'AL2023':
      return al2023UserData(input);
    case 'AL2':
      return al2UserData(input);
    case 'Bottlerocket':
      return bottlerocketUserData(input);
    case 'Custom':
      return input.customUserData ?? '';
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return windowsUserData(input);
  }
}
