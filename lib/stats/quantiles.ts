/** Quantiles and tails of the normal, chi-square and Student's t distributions: closed forms and bisection, no tables. */

/** The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number): number =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** The standard normal density. */
export function normalDensity(x: number): number {
  return Math.exp(-(x * x) / 2) / Math.sqrt(2 * Math.PI);
}

/** The chi-square quantile (Wilson-Hilferty: the cube root of chi-square / dof is nearly normal). */
export function chiSquareQuantile(p: number, dof: number): number {
  const a = 2 / (9 * dof);
  return dof * Math.max(0, 1 - a + normalQuantile(p) * Math.sqrt(a)) ** 3;
}

/** P(|T| > t) for Student's t on an integer number of degrees of freedom (Abramowitz and Stegun 26.7.3-4). */
function studentTail(t: number, dof: number): number {
  const theta = Math.atan(Math.abs(t) / Math.sqrt(dof));
  const cos2 = Math.cos(theta) ** 2;
  let sum: number;
  if (dof % 2 === 1) {
    let term = Math.cos(theta);
    sum = 0;
    for (let k = 3; k <= dof; k += 2) {
      sum += term;
      term *= (cos2 * (k - 1)) / k;
    }
    return Math.max(0, 1 - (2 / Math.PI) * (theta + Math.sin(theta) * sum));
  }
  let term = 1;
  sum = 0;
  for (let k = 2; k <= dof; k += 2) {
    sum += term;
    term *= (cos2 * (k - 1)) / k;
  }
  return Math.max(0, 1 - Math.sin(theta) * sum);
}

/** The t with P(|T| > t) = tail on `dof` (integer) degrees of freedom, by bisection. */
export function studentQuantile(tail: number, dof: number): number {
  const nu = Math.max(1, Math.floor(dof));
  let high = 1;
  while (studentTail(high, nu) > tail && high < 1e12) high *= 2;
  let low = 0;
  for (let i = 0; i < 200 && high - low > 1e-10 * high; i++) {
    const middle = (low + high) / 2;
    if (studentTail(middle, nu) > tail) low = middle;
    else high = middle;
  }
  return high;
}
