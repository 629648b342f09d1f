/* Tests of the link models (models/link*.c) and the built-in link files:
 * spec arithmetic, published measurements (tests/data/reference), and the
 * invariants every link must keep. */
#include <math.h>

#include "models/link_family.h"
#include "models/registry.h"
#include "tests/ref_data.h"
#include "tests/suites.h"

static MdlRegistry *builtin;

static void setup(void)
{
  g_autoptr(GError) error = NULL;
  builtin = mdl_registry_new_builtin(&error);
  ck_assert_msg(builtin != NULL, "%s", error ? error->message : "");
}

static void teardown(void)
{
  g_clear_pointer(&builtin, mdl_registry_free);
}

static const MdlLink *get_link(const char *name)
{
  const MdlLink *l = mdl_registry_link(builtin, name);
  ck_assert_msg(l != NULL, "no built-in link %s", name);
  return l;
}

static double GBps(double Bps)
{
  return Bps / 1e9;
}

/* Effective GB/s of a 1 GiB message at the given packet payload. */
static double large_GBps(const MdlLink *l, guint32 payload, MdlOp op)
{
  return GBps(
      mdl_link_effective_Bps(l, G_GUINT64_CONSTANT(1) << 30, payload, op));
}

/* |model / measured - 1| <= tol */
static void check_ratio(double model, double measured, double tol,
                        const char *what)
{
  ck_assert_msg(fabs(model / measured - 1.0) <= tol,
                "%s: model %.4f vs measured %.4f (%.2f%%, tolerance %.1f%%)",
                what, model, measured, 100.0 * (model / measured - 1.0),
                100.0 * tol);
}

/* --- spec arithmetic --------------------------------------------------- */

START_TEST(test_nvlink_spec)
{
  /* NVIDIA: 25 GB/s per direction per NVLink3/4 link, 50 for NVLink5;
   * A100 12 links (300 GB/s), H100 18 (450), B200 18 (900). */
  ck_assert_double_eq_tol(GBps(mdl_link_data_rate_Bps(get_link("nvlink3"))),
                          25.0, 1e-9);
  ck_assert_double_eq_tol(
      12 * GBps(mdl_link_data_rate_Bps(get_link("nvlink3"))), 300.0, 1e-9);
  ck_assert_double_eq_tol(
      18 * GBps(mdl_link_data_rate_Bps(get_link("nvlink4"))), 450.0, 1e-9);
  ck_assert_double_eq_tol(
      18 * GBps(mdl_link_data_rate_Bps(get_link("nvlink5"))), 900.0, 1e-9);
  /* 128-byte writes: header + extension flit = 32 B per 128 B: 20.0 GB/s,
   * the per-link bandwidth NCCL assigns NVLink3 (SM80 in topo.h).  NCCL's
   * NVLink4 figure, 20.6, is a heuristic between 128- and 256-byte
   * packets: within 3%. */
  ck_assert_double_eq_tol(large_GBps(get_link("nvlink3"), 128, MDL_OP_WRITE),
                          20.0, 1e-9);
  check_ratio(large_GBps(get_link("nvlink4"), 128, MDL_OP_WRITE), 20.6, 0.03,
              "nvlink4 128 B vs NCCL's 20.6");
  ck_assert_double_eq_tol(large_GBps(get_link("nvlink3"), 256, MDL_OP_WRITE),
                          25.0 * 16 / 18, 1e-9);
  /* Data is padded to whole 16-byte flits: 17 bytes take two flits. */
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("nvlink4"), 17, 0, MDL_OP_WRITE), 32 + 32);
}
END_TEST

START_TEST(test_nvlink_measured)
{
  g_autoptr(RefTable) p2p =
      ref_table_load("p2p_8xA100_sxm4_80gb_distserve3.csv");
  g_autoptr(RefTable) nvb =
      ref_table_load("nvbandwidth_8xH100_sxm_pcie5_acceptance_kr.csv");
  g_autoptr(GArray) a100 = ref_p2p_offdiag(p2p, "uni_p2p_enabled_bw");
  g_autoptr(GArray) h100 =
      ref_numbers(nvb, "device_to_device_memcpy_read_ce", 3);
  g_autoptr(GArray) h100w =
      ref_numbers(nvb, "device_to_device_memcpy_write_ce", 3);
  double a100_model = 12 * large_GBps(get_link("nvlink3"), 256, MDL_OP_WRITE);
  double h100_model = 18 * large_GBps(get_link("nvlink4"), 256, MDL_OP_WRITE);

  /* Copy engines move 256-byte packets over all links of the pair.  The
   * A100 p2p matrix spans 265-276 GB/s (median ~274) where the model says
   * 266.7 (one extension flit; with none it would be 282): 5%.  H100 CE
   * copies measure 395-397 GB/s against 400.0: 2%, and never above. */
  ck_assert_uint_eq(a100->len, 56);
  check_ratio(a100_model, ref_median(a100), 0.05, "A100 p2p uni");
  ck_assert_double_ge(a100_model, ref_min(a100));
  check_ratio(h100_model, ref_median(h100), 0.02, "H100 CE read");
  check_ratio(h100_model, ref_median(h100w), 0.02, "H100 CE write");
  ck_assert_double_ge(h100_model, ref_max(h100w));
}
END_TEST

START_TEST(test_pcie_spec)
{
  /* 8/16/32 GT/s x16 with 128b/130b: 15.75, 31.5, 63.0 GB/s. */
  ck_assert_double_eq_tol(GBps(mdl_link_data_rate_Bps(get_link("pcie3-x16"))),
                          8.0 * 16 * 128 / 130 / 8, 1e-9);
  ck_assert_double_eq_tol(GBps(mdl_link_data_rate_Bps(get_link("pcie4-x16"))),
                          31.5077, 1e-4);
  ck_assert_double_eq_tol(GBps(mdl_link_data_rate_Bps(get_link("pcie5-x16"))),
                          63.0154, 1e-4);
  ck_assert_double_eq_tol(GBps(mdl_link_data_rate_Bps(get_link("pcie5-x4"))),
                          63.0154 / 4, 1e-4);
  /* Gen6: 64 GT/s PAM4 x16 = 128 GB/s raw; FLIT mode leaves 242 of 256
   * bytes to TLPs and DLLPs (121 GB/s), 236 to TLPs. */
  ck_assert_double_eq_tol(GBps(mdl_link_data_rate_Bps(get_link("pcie6-x16"))),
                          128.0, 1e-9);
  /* A 256-byte posted write: STP 4 + 4DW header 16 + LCRC 4. */
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("pcie5-x16"), 256, 0, MDL_OP_WRITE),
      256 + 24);
  /* Its read: two 128-byte completions of 4 + 12 + 4 overhead each. */
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("pcie5-x16"), 256, 0, MDL_OP_READ),
      256 + 2 * 20);
  /* Gen6 FLIT mode: header only, packed into 236-byte flit payloads. */
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("pcie6-x16"), 236 - 16, 0, MDL_OP_WRITE),
      256);
  /* Intel's worked example: MPS 256, 3DW header: 256 / 276 = 92.75%. */
  {
    g_autoptr(MdlLink) l = mdl_link_copy(get_link("pcie4-x16"));
    l->pcie.addr64 = FALSE;
    ck_assert_uint_eq(mdl_link_wire_bytes(l, 256, 0, MDL_OP_WRITE), 276);
  }
}
END_TEST

/* What a transfer sends the other way: read requests and acks. */
START_TEST(test_reverse_direction)
{
  const MdlLink *pcie = get_link("pcie5-x16");

  /* 4096 B read: 8 read requests of 512 B (4 + 16 + 4 each) and an Ack
   * DLLP (8 B) per 128-byte completion. */
  ck_assert_uint_eq(mdl_link_reverse_bytes(pcie, 4096, 0, MDL_OP_READ),
                    8 * 24 + 32 * 8);
  ck_assert_uint_eq(mdl_link_reverse_bytes(pcie, 4096, 0, MDL_OP_WRITE),
                    16 * 8);
  /* A smaller Max Read Request Size means more requests. */
  {
    g_autoptr(MdlLink) l = mdl_link_copy(pcie);
    l->pcie.max_read_request_bytes = 128;
    ck_assert_uint_gt(mdl_link_reverse_bytes(l, 4096, 0, MDL_OP_READ),
                      mdl_link_reverse_bytes(pcie, 4096, 0, MDL_OP_READ));
  }
  /* IB: one RC ACK (LRH, BTH, AETH, CRCs, delimiters: 32 B) per WRITE;
   * one READ request (RETH instead of AETH: 44 B) per READ. */
  ck_assert_uint_eq(
      mdl_link_reverse_bytes(get_link("ib-ndr-4x"), 1 << 20, 0, MDL_OP_WRITE),
      32);
  ck_assert_uint_eq(
      mdl_link_reverse_bytes(get_link("ib-ndr-4x"), 1 << 20, 0, MDL_OP_READ),
      44);
  /* RoCE v2 ACK: a 66-byte frame plus preamble and gap. */
  ck_assert_uint_eq(mdl_link_reverse_bytes(get_link("roce-v2-400g"), 1 << 20, 0,
                                           MDL_OP_WRITE),
                    86);
  /* NVLink reads: a 32-byte request packet per 256-byte response. */
  ck_assert_uint_eq(
      mdl_link_reverse_bytes(get_link("nvlink4"), 4096, 0, MDL_OP_READ),
      16 * 32);
  ck_assert_uint_eq(
      mdl_link_reverse_bytes(get_link("nvlink4"), 4096, 0, MDL_OP_WRITE), 0);
}
END_TEST

START_TEST(test_pcie_measured)
{
  g_autoptr(RefTable) nvb =
      ref_table_load("nvbandwidth_8xH100_sxm_pcie5_acceptance_kr.csv");
  g_autoptr(GArray) h2d = ref_numbers(nvb, "host_to_device_memcpy_ce", 3);
  g_autoptr(GArray) d2h = ref_numbers(nvb, "device_to_host_memcpy_ce", 3);
  const MdlLink *l = get_link("pcie5-x16");
  double raw = GBps(mdl_link_data_rate_Bps(l));
  double read = large_GBps(l, 0, MDL_OP_READ);
  double write = large_GBps(l, 0, MDL_OP_WRITE);

  /* H100 on Gen5 x16 measures 55.4 GB/s H2D and 55.2 D2H against 63.0 raw.
   * The gap is TLP overhead: H2D is the GPU reading host memory, the data
   * comes back in 128-byte completions (20 B overhead each): 54.4 GB/s,
   * 2% under; D2H is 256-byte posted writes (24 B each): 57.5 GB/s, 4%
   * over, the rest being the host's (DLLP traffic, memory controller). */
  ck_assert_double_gt(raw, 63.0);
  check_ratio(read, ref_median(h2d), 0.03, "H2D (reads)");
  check_ratio(write, ref_median(d2h), 0.05, "D2H (writes)");
  ck_assert_double_lt(read, raw * 0.9);
}
END_TEST

START_TEST(test_ib_spec)
{
  /* Per-lane data rates 25 (EDR), 50 (HDR), 100 (NDR), 200 (XDR) Gb/s;
   * 4x ports 100/200/400/800 Gb/s, exactly. */
  ck_assert_double_eq_tol(get_link("ib-edr-4x")->data_rate_Gbps, 100.0, 1e-9);
  ck_assert_double_eq_tol(get_link("ib-hdr-4x")->data_rate_Gbps, 200.0, 1e-9);
  ck_assert_double_eq_tol(get_link("ib-ndr-4x")->data_rate_Gbps, 400.0, 1e-9);
  ck_assert_double_eq_tol(get_link("ib-xdr-4x")->data_rate_Gbps, 800.0, 1e-9);
  ck_assert_double_eq_tol(get_link("ib-ndr-1x")->data_rate_Gbps, 100.0, 1e-9);
  ck_assert_double_eq_tol(get_link("ib-hdr-2x")->data_rate_Gbps, 100.0, 1e-9);
  /* One 4096-byte SEND: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 + delimiters 2. */
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("ib-ndr-4x"), 4096, 0, MDL_OP_SEND),
      4096 + 28);
  /* RDMA WRITE adds the 16-byte RETH once; READ responses an AETH on the
   * first and last packets; the payload pads to 4 bytes. */
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("ib-ndr-4x"), 8192, 0, MDL_OP_WRITE),
      8192 + 2 * 28 + 16);
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("ib-ndr-4x"), 8192, 0, MDL_OP_READ),
      8192 + 2 * 28 + 8);
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("ib-ndr-4x"), 1, 0, MDL_OP_SEND), 4 + 28);
}
END_TEST

START_TEST(test_roce_spec)
{
  const MdlLink *v2 = get_link("roce-v2-100g");

  /* 4 x 25.78125 Gb/s with RS(528,514): exactly 100 Gb/s; 200/400/800. */
  ck_assert_double_eq_tol(v2->data_rate_Gbps, 100.0, 1e-9);
  ck_assert_double_eq_tol(get_link("roce-v2-200g")->data_rate_Gbps, 200.0,
                          1e-9);
  ck_assert_double_eq_tol(get_link("roce-v2-400g")->data_rate_Gbps, 400.0,
                          1e-9);
  ck_assert_double_eq_tol(get_link("roce-v2-800g")->data_rate_Gbps, 800.0,
                          1e-9);
  /* v2 per packet: preamble 8 + Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 +
   * ICRC 4 + FCS 4 + gap 12 = 82; v1 has the 40-byte GRH instead: 94. */
  ck_assert_uint_eq(mdl_link_wire_bytes(v2, 4096, 0, MDL_OP_SEND), 4096 + 82);
  ck_assert_uint_eq(
      mdl_link_wire_bytes(get_link("roce-v1-100g"), 4096, 0, MDL_OP_SEND),
      4096 + 94);
  /* An empty SEND (62-byte frame) pads to Ethernet's 64-byte minimum; a
   * 1-byte one pads its payload to 4 bytes: 66. */
  ck_assert_uint_eq(mdl_link_wire_bytes(v2, 0, 0, MDL_OP_SEND), 8 + 64 + 12);
  ck_assert_uint_eq(mdl_link_wire_bytes(v2, 1, 0, MDL_OP_SEND), 8 + 66 + 12);
}
END_TEST

/* ib_write_bw, RoCE, MTU 1024, GPU memory (GPU Operator docs): the link
 * model at 100 GbE predicts the bandwidth plateau, and bounds every size
 * from above (small messages are limited by the NIC's message rate). */
START_TEST(test_roce_measured)
{
  g_autoptr(RefTable) t = ref_table_load(
      "ibwritebw_roce_gpudirect_cuda_nvidia_gpuoperator_doc.csv");
  const MdlLink *l = get_link("roce-v2-100g");

  for (guint i = 0; i < t->rows->len; i++) {
    GStrv row = t->rows->pdata[i];
    guint64 size = g_ascii_strtoull(row[0], NULL, 10);
    double measured = g_ascii_strtod(row[3], NULL);
    double model = mdl_link_effective_Bps(l, size, 1024, MDL_OP_WRITE) * 8e-9;
    ck_assert_msg(model >= measured,
                  "%" G_GUINT64_FORMAT " B: model %.2f < "
                  "measured %.2f Gb/s",
                  size, model, measured);
    if (size >= 65536)
      check_ratio(model, measured, 0.005, "RoCE 1024-byte MTU plateau");
    if (size == 2048)
      check_ratio(model, measured, 0.01, "RoCE 2 KiB (two packets)");
  }
}
END_TEST

START_TEST(test_socket_spec)
{
  /* UPI 2.0: 20 lanes x 16 GT/s, 64 of 80 flit bits data: 32 GB/s. */
  ck_assert_double_eq_tol(large_GBps(get_link("upi2"), 0, MDL_OP_WRITE), 32.0,
                          1e-9);
  /* xGMI3: 16 x 32 Gb/s = 64 GB/s per link; 4 links x 2 directions = the
   * published 512 GB/s. */
  ck_assert_double_eq_tol(8 * GBps(mdl_link_data_rate_Bps(get_link("xgmi3"))),
                          512.0, 1e-9);
}
END_TEST

/* Switch capacity = ports x port data rate x 2 directions, against the
 * published aggregates: NVSwitch gen3 3.2 TB/s, Blackwell NVLink Switch
 * 7.2 TB/s, Quantum HDR 16 Tb/s, Quantum-2 51.2 Tb/s, all bidirectional;
 * Spectrum-4's 51.2 Tb/s counts each port once, as Ethernet vendors do
 * (sources in docs/models.md). */
START_TEST(test_switch_capacity)
{
  static const struct {
    const char *name;
    double bidir_Gbps;
  } cases[] = {
      {"nvswitch3", 3200 * 8},       {"nvswitch4", 7200 * 8},
      {"quantum-hdr", 16000},        {"quantum2-ndr", 51200},
      {"spectrum4-400g", 2 * 51200}, {"spectrum4-800g", 2 * 51200},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    const MdlSwitch *sw = mdl_registry_switch(builtin, cases[i].name);
    ck_assert_ptr_nonnull(sw);
    ck_assert_double_eq_tol(2.0 * sw->ports *
                                get_link(sw->port_link)->data_rate_Gbps,
                            cases[i].bidir_Gbps, 1e-6);
  }
  /* NVLS reduces where NVSwitch gen3/gen4 are; SHARP on Quantum. */
  ck_assert_uint_eq(mdl_registry_switch(builtin, "nvswitch3")->reduction,
                    MDL_REDUCE_NVLS);
  ck_assert_uint_eq(mdl_registry_switch(builtin, "nvswitch2")->reduction,
                    MDL_REDUCE_NONE);
  ck_assert_uint_eq(mdl_registry_switch(builtin, "quantum2-ndr")->reduction,
                    MDL_REDUCE_SHARP);
}
END_TEST

/* NICs: the network port is the bottleneck of every built-in NIC (a NIC is
 * never sized below its port by its PCIe slot), and without GPUDirect data
 * crosses PCIe twice: DGX Spark's ConnectX-7 only. */
START_TEST(test_nics)
{
  g_autoptr(GPtrArray) names = mdl_registry_nic_names(builtin);

  ck_assert_uint_eq(names->len, 12);
  for (guint i = 0; i < names->len; i++) {
    const MdlNic *n = mdl_registry_nic(builtin, names->pdata[i]);
    double net = n->ports * large_GBps(get_link(n->port_link), 0, MDL_OP_WRITE);
    double host = large_GBps(get_link(n->host_link), 0, MDL_OP_WRITE);
    ck_assert_msg(host > net, "%s: host %.1f <= network %.1f", n->name, host,
                  net);
    ck_assert_uint_eq(mdl_nic_pcie_crossings(n),
                      strcmp(n->name, "cx7-200g-spark") == 0 ? 2 : 1);
  }
  ck_assert_double_eq(mdl_registry_nic(builtin, "cx6-hdr")->message_rate_Mpps,
                      215);
}
END_TEST

/* --- invariants of every built-in link ---------------------------------- */

START_TEST(test_never_beats_line_rate)
{
  g_autoptr(GPtrArray) names = mdl_registry_link_names(builtin);
  static const guint64 sizes[] = {0,
                                  1,
                                  7,
                                  64,
                                  100,
                                  4095,
                                  4096,
                                  4097,
                                  65536,
                                  1000003,
                                  G_GUINT64_CONSTANT(8) << 30};

  ck_assert_uint_ge(names->len, 30);
  for (guint i = 0; i < names->len; i++) {
    const MdlLink *l = get_link(names->pdata[i]);
    double rate = mdl_link_data_rate_Bps(l);
    for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
      for (int op = MDL_OP_WRITE; op <= MDL_OP_SEND; op++) {
        guint64 wire = mdl_link_wire_bytes(l, sizes[s], 0, op);
        SimTime t = mdl_link_serialize_ps(l, sizes[s], 0, op);
        ck_assert_uint_ge(wire, sizes[s]);
        ck_assert_msg(mdl_link_effective_Bps(l, sizes[s], 0, op) <= rate,
                      "%s beats its line rate", l->name);
        /* serialization never faster than the data rate allows */
        ck_assert_double_ge((double)t, sizes[s] * 8 / l->data_rate_Gbps * 1e3 *
                                           (1 - 1e-12));
      }
    }
  }
}
END_TEST

START_TEST(test_rises_with_payload)
{
  g_autoptr(GPtrArray) names = mdl_registry_link_names(builtin);

  for (guint i = 0; i < names->len; i++) {
    const MdlLink *l = get_link(names->pdata[i]);
    double prev = 0;
    /* Payloads in whole 16-byte units up to the maximum; a message of
     * whole packets of each. */
    for (guint32 p = 16; p <= l->max_payload_bytes; p *= 2) {
      double e = mdl_link_effective_Bps(l, (guint64)p * 64, p, MDL_OP_WRITE);
      ck_assert_msg(e >= prev, "%s: %u-byte payload slower than half", l->name,
                    p);
      prev = e;
    }
    /* ... and with message size, in whole maximum packets. */
    prev = 0;
    for (guint64 n = 1; n <= 4096; n *= 4) {
      double e =
          mdl_link_effective_Bps(l, n * l->max_payload_bytes, 0, MDL_OP_WRITE);
      ck_assert_double_ge(e, prev);
      prev = e;
    }
  }
}
END_TEST

/* More header bytes, less bandwidth: each option that adds a header. */
START_TEST(test_falls_with_header_overhead)
{
  g_autoptr(MdlLink) ib = mdl_link_copy(get_link("ib-ndr-4x"));
  g_autoptr(MdlLink) roce = mdl_link_copy(get_link("roce-v2-400g"));
  g_autoptr(MdlLink) pcie = mdl_link_copy(get_link("pcie5-x16"));
  g_autoptr(MdlLink) nv = mdl_link_copy(get_link("nvlink4"));
  double before;

  before = large_GBps(ib, 0, MDL_OP_WRITE);
  ib->ib.grh = TRUE;
  ck_assert_double_lt(large_GBps(ib, 0, MDL_OP_WRITE), before);
  before = large_GBps(roce, 0, MDL_OP_WRITE);
  roce->roce.vlan = TRUE;
  ck_assert_double_lt(large_GBps(roce, 0, MDL_OP_WRITE), before);
  before = large_GBps(roce, 0, MDL_OP_WRITE);
  roce->roce.version = MDL_ROCE_V1;
  ck_assert_double_lt(large_GBps(roce, 0, MDL_OP_WRITE), before);
  before = large_GBps(pcie, 0, MDL_OP_WRITE);
  pcie->pcie.ecrc = TRUE;
  ck_assert_double_lt(large_GBps(pcie, 0, MDL_OP_WRITE), before);
  before = large_GBps(nv, 0, MDL_OP_WRITE);
  nv->nvlink.extension_flits = 2;
  ck_assert_double_lt(large_GBps(nv, 0, MDL_OP_WRITE), before);
  /* The smaller the completion, the more headers per byte read. */
  before = large_GBps(pcie, 0, MDL_OP_READ);
  pcie->pcie.read_completion_bytes = 64;
  ck_assert_double_lt(large_GBps(pcie, 0, MDL_OP_READ), before);
}
END_TEST

START_TEST(test_latency)
{
  g_autoptr(MdlLink) l = mdl_link_copy(get_link("ib-ndr-4x"));

  ck_assert_uint_eq(mdl_link_latency_ps(l), SIM_NS(100));
  l->cable_m = 30; /* 5 ns/m */
  ck_assert_uint_eq(mdl_link_latency_ps(l), SIM_NS(250));
}
END_TEST

/* Azure HB (100 Gb/s-class InfiniBand, host memory): ib_send_lat measures
 * 2.38 us at 2 bytes.  The model's pieces of that path (two NIC traversals,
 * two EDR links, one switch) must fit inside it, with room for the host's
 * PCIe round trips and software. */
START_TEST(test_latency_within_measured)
{
  g_autoptr(RefTable) t =
      ref_table_load("ibsendlat_ib_azureHB_hostmem_msdocs.csv");
  double measured_ns = ref_lookup(t, 0, "2", 4) * 1e3;
  const MdlNic *nic = mdl_registry_nic(builtin, "cx6-hdr");
  const MdlSwitch *sw = mdl_registry_switch(builtin, "quantum-hdr");
  double model_ns =
      nic->latency_ns + sw->latency_ns +
      2 * sim_time_to_ns(mdl_link_latency_ps(get_link("ib-edr-4x")));

  ck_assert_double_lt(model_ns, measured_ns);
  ck_assert_double_gt(model_ns, measured_ns / 4);
}
END_TEST

Suite *suite_links(void)
{
  Suite *s = suite_create("links");
  TCase *tc = tcase_create("spec");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_nvlink_spec);
  tcase_add_test(tc, test_nvlink_measured);
  tcase_add_test(tc, test_pcie_spec);
  tcase_add_test(tc, test_pcie_measured);
  tcase_add_test(tc, test_reverse_direction);
  tcase_add_test(tc, test_ib_spec);
  tcase_add_test(tc, test_roce_spec);
  tcase_add_test(tc, test_roce_measured);
  tcase_add_test(tc, test_socket_spec);
  tcase_add_test(tc, test_switch_capacity);
  tcase_add_test(tc, test_nics);
  suite_add_tcase(s, tc);
  tc = tcase_create("invariants");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_never_beats_line_rate);
  tcase_add_test(tc, test_rises_with_payload);
  tcase_add_test(tc, test_falls_with_header_overhead);
  tcase_add_test(tc, test_latency);
  tcase_add_test(tc, test_latency_within_measured);
  suite_add_tcase(s, tc);
  return s;
}
