/* sp_heun.h: one step of the stochastic Heun scheme (SRK2, Algorithm 2 of
 * paper 001) for a particle whose velocity carries an additive noise,
 *
 *   x' = v,  v' = a(x, v, f(t)) + noise,
 *
 * written once for the models that integrate one (escape.h, driven.h):
 *
 *   a0 = a(x, v, f0);  x~ = x + dt v;  v~ = v + dt a0 + dW
 *   x' = x + hdt (v + v~);  v' = v + hdt (a0 + a(x~, v~, f1)) + dW
 *
 * with hdt = dt / 2, f0 and f1 the forcing (bias, drive) at the start and
 * the end of the step, and dW the step's noise.
 *
 * A model header includes this file once per working precision (SP_REAL),
 * after defining
 *   SP_HEUN_STEP   the name of the step (in SP_PREC form: one per precision),
 *   SP_HEUN_PAR    the model's parameter type,
 *   SP_HEUN_ACCEL  its acceleration, an SP_FN called as a(p, x, v, f);
 * it undefines the three.  No include guard, for that reason. */

SP_FN void SP_HEUN_STEP(const SP_HEUN_PAR *p, SP_REAL dt, SP_REAL hdt, SP_REAL f0, SP_REAL f1,
                        SP_REAL dW, SP_REAL *x, SP_REAL *v) {
  SP_REAL a0 = SP_HEUN_ACCEL(p, *x, *v, f0);
  SP_REAL xp = *x + dt * *v;
  SP_REAL vp = *v + dt * a0 + dW;
  SP_REAL a1 = SP_HEUN_ACCEL(p, xp, vp, f1);
  *x = *x + hdt * (*v + vp);
  *v = *v + hdt * (a0 + a1) + dW;
}

#undef SP_HEUN_STEP
#undef SP_HEUN_PAR
#undef SP_HEUN_ACCEL
