//! Documentation fragments for `documentation/index.html`.

/// What the circuit is.
pub const SUMMARY: &str = r#"<p>Three identical sharp-edged orifices in series between an ideal
pressure source (<code>ps</code>) and a tank (<code>pt</code>). A large volume
<code>V1</code> (pressure <code>p1</code>) sits between orifices 1 and 2, a small
volume <code>V2</code> (pressure <code>p2</code>) between orifices 2 and 3. The small
volume and the steep orifice law near zero pressure drop make the equations stiff
(Jacobian eigenvalues down to about -2.4e4 1/s at start-up). Source: seed 000
(Ustinov et al. 2022), circuit 1; model card <code>orifice-chain.md</code>.</p>
<pre>
 ps --[orifice 1]-- V1 (p1) --[orifice 2]-- V2 (p2) --[orifice 3]-- pt
           Q1                        Q2                        Q3
</pre>
<p>Inside <code>doStep</code> the FMU integrates with an adaptive L-stable Rosenbrock
method (Rodas3) using the analytic Jacobian; parameter <code>solver</code> selects
explicit Euler or RK4 at <code>explicit_step</code> instead, as the seed did.</p>"#;

/// The equations, numbered as in the model card.
pub const EQUATIONS: &str = r#"<ol>
<li>(E1) Orifice coefficient: K<sub>i</sub> = Cd &middot; (&pi;/4) d<sub>i</sub><sup>2</sup> &middot; &radic;(2/&rho;).</li>
<li>(E2) Regularised two-regime orifice law, value and slope continuous at |&Delta;p| = p_tr:
  <ul><li>|&Delta;p| &ge; p_tr: Q = K sign(&Delta;p) &radic;|&Delta;p|</li>
  <li>|&Delta;p| &lt; p_tr: Q = K (5/(4&radic;p_tr) &Delta;p &minus; &Delta;p<sup>3</sup>/(4 p_tr<sup>5/2</sup>))</li></ul></li>
<li>(E3) Q1 = K1 f(ps &minus; p1), Q2 = K2 f(p1 &minus; p2), Q3 = K3 f(p2 &minus; pt).</li>
<li>(E4) Bulk modulus: B(p) = a1 &middot; Emax &middot; log10(a2 &middot; max(p, 0)/pmax + a3)
  (ln instead of log10 when <code>bulk_log_natural</code> is true).</li>
<li>(E5) dp1/dt = B(p1)/V1 &middot; (Q1 &minus; Q2), dp2/dt = B(p2)/V2 &middot; (Q2 &minus; Q3).</li>
</ol>
<p>Steady state with identical orifices: p1 = pt + 2/3 (ps &minus; pt), p2 = pt + 1/3 (ps &minus; pt),
Q = K &radic;((ps &minus; pt)/3); with the defaults 66.67 bar, 33.33 bar and 2.43 L/min.</p>"#;

/// Deviations from the paper and caveats.
pub const NOTES: &str = r#"<ul>
<li>All parameter defaults are seed 000, Table 1, except <code>p_tr</code>, <code>p1_0</code>,
<code>p2_0</code> and <code>pt</code>, which the paper does not give (model card's choice).</li>
<li>The paper's bulk-modulus law is written with "log". With log10, B(pmax) = 1.77e9 Pa &asymp; Emax
and B(0) = 4.3e8 Pa, physically plausible; with ln, B(pmax) = 4.1e9 Pa, far above Emax. log10 is
the default. The paper's finding that an explicit solver is wrong at a 1 ms step appears only
with ln (<code>bulk_log_natural = true</code>): explicit Euler then oscillates for ever and RK4
settles on a false steady state.</li>
<li>The paper's square-root orifice law has an infinite slope at zero pressure drop; this FMU
uses the card's regularised law E2, so the Jacobian is finite everywhere.</li>
<li>The model card gives RK4's largest stable fixed step at steady state as 2.18 ms (log10) and
0.95 ms (ln). RK4's stability interval on the negative real axis ends at -2.785, which with the
steady-state eigenvalues (-1249 and -2876 1/s) gives 2.23 ms and 0.97 ms; the independent
reference (validation/python/reference/orifice_chain.py) confirms those by simulation.</li>
<li>Pressures are gauge pressures; B uses max(p, 0), so negative pressures (which explicit
methods beyond their stability limit produce) keep B(0).</li>
</ul>"#;
