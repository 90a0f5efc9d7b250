import { Gallery } from './gallery';

export default function Page() {
  return <Gallery />;
}
