import { map } from 'rxjs/operators';

export function double(values: number[]): number[] {
    return values.map((v) => v * 2);
}
